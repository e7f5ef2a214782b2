import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/util/logger';
import { openRuntime, type Runtime } from '../../../src/runtime';
import type { Principal } from '../../../src/domain/principal';
import { LIST_RECORD_SQL } from '../../../src/read-models/catalog-list-record';
import { CATALOG_COMPANY_NAMES, CATALOG_FILINGS, CATALOG_PRODUCT_NAMES } from '../../../src/read-models/catalog';
import { CatalogListQuery, catalogFilter, sortKeys } from '../../../queries/catalog/catalog-filters';
import { catalogListQuery } from '../../../queries/catalog/catalog-list-query';
import { catalogListColumns, catalogPageOutput, keysetPositionOf } from '../../../queries/catalog/catalog-record';
import { orderBySql, type KeysetPosition, type SortKey } from '../../../queries/catalog/keyset';
import { queryPreparedSql } from '../../../infra/postgres/prepared';
import { freshDatabaseUrl } from '../../support/postgres';
import { raw, sql, where } from '../../../infra/postgres/sql';

const principal = { permissions: ['serff:view'] } as unknown as Principal;

/** Every sort key's field (as `sort` names it) and how its column is selected as text for the expected order. */
const SORT_FIELDS = ['submissionDate', 'dispositionDate', 'stateStatusChangedDate', 'companyName', 'state', 'sourceReference'];
const SORT_TEXT: Record<string, string> = {
  submission_date: '"submission_date"::text',
  disposition_date: '"disposition_date"::text',
  state_status_changed_date: '"state_status_changed_date"::text',
  company_name: '"company_name"',
  state: '"state"',
  source_reference_key: '"source_reference_key"',
};

type Row = { id: string } & Record<string, string | null>;

/**
 * The spec's order computed here, not by SQL: per key ascending or descending with nulls last in both
 * directions, then the id ascending. Plain code-unit comparison is the database's (initdb --locale=C) for
 * these ASCII values, and YYYY-MM-DD dates and lower-case uuids compare as their text.
 */
function specOrder(rows: Row[], keys: SortKey[]): string[] {
  const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return [...rows]
    .sort((a, b) => {
      for (const k of keys) {
        const x = a[k.column];
        const y = b[k.column];
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return k.desc ? cmp(y, x) : cmp(x, y);
      }
      return cmp(a.id, b.id);
    })
    .map((r) => r.id);
}

/**
 * The keyset branches (one index range per key, merged) against the spec's order computed in the test:
 * the first page and walking pages of 7 must give exactly that sequence, for every sort key in both
 * directions (first and second key), with many ties and nulls in every nullable key.
 */
describe('catalog keyset pages', function () {
  this.timeout(60_000);
  let rt: Runtime;
  let dataDir: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-keyset-'));
    rt = await openRuntime(loadConfig({}, { dataDir, databaseUrl: await freshDatabaseUrl(), logLevel: 'warn' }), createLogger('silent'));
    // Small value domains: long runs of equal keys, and nulls in each date column and in company_name (a
    // source may name no company: spec, Resources, a field not marked required may be null).
    await rt.db.knex.raw(`
      insert into ${CATALOG_FILINGS} (id, version, source, source_reference, source_reference_key, state, company_name, product_name,
        type_of_insurance, sub_type_of_insurance, toi_code, filing_type, source_status, submission_date, disposition_date, business_type,
        normalized_outcome, filing_type_normalized, state_status_changed_date, files, list_record)
      -- Each reference key twice (one per source: the key is per source), so the reference sort has ties too.
      select gen_random_uuid(), 1, (array['serff','florida_irfs'])[1 + i % 2], 'R-' || (i % 150), 'R-' || (i % 150), (array['TX','FL','CA'])[1 + i % 3],
        case when i % 7 = 3 then null else 'Company ' || (i % 4) end, 'P', 'T', 'S',
        (array['04.0','19.0'])[1 + i % 2], 'Rate', 'Closed',
        case when i % 5 = 0 then null else date '2024-01-01' + (i % 6) end,
        case when i % 4 = 1 then null else date '2024-02-01' + (i % 3) end,
        'Property', 'APPROVED', 'RATE',
        case when i % 3 = 2 then null else date '2024-03-01' + (i % 2) end, '[]'::jsonb, ''
      from generate_series(1, 300) as i;
      update ${CATALOG_FILINGS} set list_record = ${LIST_RECORD_SQL};
      insert into ${CATALOG_COMPANY_NAMES} (name) select distinct company_name from ${CATALOG_FILINGS} where company_name is not null;
      insert into ${CATALOG_PRODUCT_NAMES} (name) select distinct product_name from ${CATALOG_FILINGS};
      analyze ${CATALOG_FILINGS};
    `);
  });
  after(async () => {
    await rt.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  // Every key in both directions as the first key, and as the second key after a key with long runs of ties
  // (the state, or the company name for the state itself), and a few three-key sorts.
  const directions = SORT_FIELDS.flatMap((f) => [f, `-${f}`]);
  const SORTS: string[][] = [
    [],
    ...directions.map((d) => [d]),
    // Same and opposite directions of the two keys, alternating by field.
    ...directions.map((d, i) => [`${(i + (i >> 1)) % 2 ? '-' : ''}${d.replace('-', '') === 'state' ? 'companyName' : 'state'}`, d]),
    ['state', '-submissionDate', 'stateStatusChangedDate'], ['-state', '-companyName', 'submissionDate'], ['dispositionDate', '-sourceReference', 'companyName'],
  ];
  // The ...Contains filters read one index range per matched name: 1 and 4 names, alone and with a state.
  const FILTERS: Record<string, string>[] = [
    {},
    { toi: '04.0' },
    { state: 'TX', submissionDateFrom: '2024-01-03' },
    { companyNameContains: 'ANY 1' },
    { companyNameContains: 'company', state: 'FL' },
  ];

  for (const sort of SORTS) {
    for (const filters of FILTERS) {
      it(`rule: keyset pages equal the full order (sort ${sort.join(',') || 'default'}, filters ${JSON.stringify(filters)})`, async () => {
        const knex = rt.db.knex;
        const q = CatalogListQuery.parse({ ...filters, ...(sort.length ? { sort } : {}) });
        const keys = sortKeys(q.sort);
        const filter = await catalogFilter(knex, q, principal);
        // As the endpoint reads pages: only the stored records, the next position from the last record.
        const page = (limit: number, after: KeysetPosition | null) => {
          const statement = catalogListQuery(filter, keys, limit, after, catalogListColumns(keys.map((k) => k.column), false), catalogPageOutput(false));
          return queryPreparedSql<{ list_record: string }>(knex, statement);
        };
        const idOf = (r: { list_record: string }) => (JSON.parse(r.list_record) as { id: string }).id;
        const selected = Object.entries(SORT_TEXT).map(([c, expr]) => `${expr} as "${c}"`).join(', ');
        const filtered = await queryPreparedSql<Row>(knex, sql`select "id", ${raw(selected)} from ${raw(CATALOG_FILINGS)}${where(filter.where())}`);
        const all = specOrder(filtered, keys);
        assert.deepEqual((await page(1000, null)).map(idOf), all);
        const walked: string[] = [];
        let after: KeysetPosition | null = null;
        for (;;) {
          const rows = await page(7, after);
          walked.push(...rows.map(idOf));
          if (rows.length < 7) break;
          after = keysetPositionOf(rows[rows.length - 1].list_record, keys);
        }
        assert.ok(all.length > 20);
        assert.deepEqual(walked, all);
        if (q.companyNameContains) {
          // The per-name union is the substring filter of the plain order.
          const plain = knex(CATALOG_FILINGS).select('id').whereRaw('lower(company_name) like ?', [`%${q.companyNameContains.toLowerCase()}%`]);
          if (q.state) plain.whereIn('state', q.state);
          const { sql, bindings } = plain.toSQL().toNative();
          const rows = await queryPreparedSql<{ id: string }>(knex, sql + orderBySql(keys), bindings as unknown[]);
          assert.deepEqual(rows.map((r) => r.id), all);
        }
      });
    }
  }
});
