import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/util/logger';
import { openRuntime, type Runtime } from '../../../src/runtime';
import type { Principal } from '../../../src/domain/principal';
import { LIST_RECORD_SQL } from '../../../src/read-models/catalog-list-record';
import { CATALOG_COMPANY_NAMES, CATALOG_FILINGS, CATALOG_PRODUCT_NAMES } from '../../../src/read-models/catalog';
import { DIR } from '../../../src/read-models/directory';
import { CatalogListQuery, catalogFilter, dateLiteral, sortKeys } from '../../../queries/catalog/catalog-filters';
import { CatalogNames, withNamesVersion } from '../../../queries/catalog/catalog-names-cache';
import { queryPreparedSql } from '../../../infra/postgres/prepared';
import { catalogListQuery } from '../../../queries/catalog/catalog-list-query';
import { catalogPageOutput, catalogListColumns } from '../../../queries/catalog/catalog-record';
import type { KeysetPosition } from '../../../queries/catalog/keyset';
import { freshDatabaseUrl } from '../../support/postgres';

const ROWS = 50_000;

/**
 * The most common catalog lists, built by the same code as GET /insurance/filings, EXPLAINed on
 * 50,000 generated filings after ANALYZE: a realistic planner, no `enable_seqscan = off`. A plan
 * that scans the whole catalog table fails the test. WRITE_PLANS=1 also rewrites
 * bench/results/catalog-query-plans.md from these plans (docs/catalog-query-plans.md says why they look so).
 */
const AFTER_ID = '80000000-0000-4000-8000-000000000000';

/**
 * Every sort key in both directions, first page and a deep page (after a position among filings that have the
 * key; the company name sorts are listed with the other lists): each reads index ranges in its order. `readsAtMost`: no scan node reads more rows of catalog_filings
 * than that (a whole index walked in order and filtered is no sequential scan, and no better).
 */
const SORT_LISTS: ListShape[] = (
  [
    ['submissionDate', 'submission date', '2021-06-01'],
    ['dispositionDate', 'disposition date', '2021-06-01'],
    ['stateStatusChangedDate', 'state status change date', '2021-06-01'],
    ['state', 'state', 'TX'],
    ['sourceReference', 'source reference', 'ABCD-130012345'],
  ] as const
).flatMap(([field, words, value]) =>
  // The descending submission date sort is the default list (above).
  (field === 'submissionDate' ? [false] : [false, true]).flatMap((desc) => {
    const sort = `${desc ? '-' : ''}${field}`;
    const title = `the ${words} sort${desc ? ', descending' : ''}`;
    return [
      { title: `Sort by ${words}${desc ? ', descending' : ''}`, query: { sort }, readsAtMost: 1_000 },
      { title: `A deep page of ${title}`, query: { sort }, after: { v: [value], id: AFTER_ID }, readsAtMost: 1_000 },
    ];
  }),
);

interface ListShape {
  title: string;
  query: Record<string, string | string[]>;
  serff?: boolean;
  after?: KeysetPosition;
  /** Shown in the doc but not held to the rule: a substring of most names (at 50,000 rows a sequential scan is cheapest). */
  unindexed?: boolean;
  readsAtMost?: number;
}

const LISTS: ListShape[] = [
  { title: 'Default list (newest submissions first)', query: {} },
  { title: 'Default list for a key without serff:view (SERFF filings absent)', query: {}, serff: false },
  { title: 'One state, newest first', query: { state: 'TX' } },
  { title: 'One carrier (through its current NAIC code)', query: { carrier: 'carrier_10042' } },
  { title: 'Lookup by native reference (one source, one reference)', query: { source: 'serff', sourceReference: 'ABCD-130012345' } },
  { title: 'TOI within a submission date range', query: { toi: '04.0', submissionDateFrom: '2024-01-01', submissionDateTo: '2024-12-31' } },
  { title: 'State and TOI', query: { state: 'TX', toi: '04.0' } },
  { title: 'Company name contains, 10 names (one index range per name)', query: { companyNameContains: 'Company 1004' } },
  { title: 'Company name contains, 1 name', query: { companyNameContains: 'Company 10042' } },
  { title: 'A deep page of company name contains, 1 name', query: { companyNameContains: 'Company 10042' }, after: { v: ['2021-06-01'], id: '80000000-0000-4000-8000-000000000000' } },
  { title: 'Product name contains, 1 name, with a state', query: { productNameContains: 'product 42', state: 'TX' } },
  { title: 'Company name contains, 100 names (an IN list of the names)', query: { companyNameContains: 'Company 100' } },
  { title: 'Company name contains, 2,000 names (the substring filters the date index walk)', query: { companyNameContains: 'Company 1' }, unindexed: true },
  { title: 'Submission date range and outcome', query: { submissionDateFrom: '2023-01-01', submissionDateTo: '2023-12-31', normalizedOutcome: 'APPROVED' } },
  { title: 'A deep page of the default list (after a keyset position)', query: {}, after: { v: ['2021-06-01'], id: '80000000-0000-4000-8000-000000000000' } },
  { title: 'A deep page of state and TOI', query: { state: 'TX', toi: '04.0' }, after: { v: ['2021-06-01'], id: '80000000-0000-4000-8000-000000000000' } },
  { title: 'Sort by company name', query: { sort: 'companyName' }, readsAtMost: 1_000 },
  { title: 'A deep page of the company name sort', query: { sort: 'companyName' }, after: { v: ['Company 10500'], id: AFTER_ID }, readsAtMost: 1_000 },
  { title: 'A deep page of the company name sort, among the filings without a company name', query: { sort: 'companyName' }, after: { v: [null], id: AFTER_ID }, readsAtMost: 1_000 },
  { title: 'Sort by company name, descending', query: { sort: '-companyName' }, readsAtMost: 1_000 },
  { title: 'A deep page of the company name sort, descending', query: { sort: '-companyName' }, after: { v: ['Company 10500'], id: AFTER_ID }, readsAtMost: 1_000 },
  ...SORT_LISTS,
  { title: 'A deep page of the submission date sort, among the filings without a submission date', query: { sort: 'submissionDate' }, after: { v: [null], id: AFTER_ID }, readsAtMost: 1_000 },
];

const principal = (serff: boolean): Principal => ({
  keyId: 'k',
  userId: 'u',
  tenantId: 't',
  name: null,
  email: null,
  readOnly: false,
  permissions: serff ? ['serff:view'] : [],
  tenant: { datasets: ['naic'], sharing: false },
});

async function generate(knex: Knex): Promise<void> {
  await knex.raw(`
    insert into ${CATALOG_FILINGS} (id, version, source, source_reference, source_reference_key, state, company_name, naic_company_codes,
      naic_group_code, carrier_ids, group_id, product_name, type_of_insurance, sub_type_of_insurance, toi_code, sub_toi_code, filing_type,
      source_status, submission_date, disposition_date, business_type, normalized_outcome, filing_type_normalized, state_status_changed_date,
      description, files, list_record)
    select gen_random_uuid(), 1, s.source, s.ref, upper(s.ref),
      (array['TX','FL','CA','NY','GA','IL','OH','PA','NC','MI','NJ','VA','WA','AZ','MA','TN','IN','MO','MD','WI'])[1 + (i * 7) % 20],
      -- A few filings name no company (spec: a field not marked required may be null).
      case when i % 499 = 17 then null else 'Company ' || (10000 + i % 2000) end, case when i % 20 = 0 then null else array[(10000 + i % 2000)::text] end,
      (100 + i % 300)::text, array['carrier_' || (10000 + i % 2000)], 'carrier_group_' || (100 + i % 300),
      'Product ' || (i % 500), 'Type', 'Sub type',
      case when i % 20 = 1 then null else (array['04.0','19.0','17.0','01.0','20.0','16.0'])[1 + i % 6] end, null,
      'Rate', 'Closed-Approved',
      case when i % 50 = 2 then null else date '2018-01-01' + ((i::bigint * 7919) % 2900)::int end,
      case when i % 5 = 3 then null else date '2018-02-01' + ((i::bigint * 104729) % 2900)::int end,
      'Property', (array['APPROVED','FILED','WITHDRAWN','PENDING'])[1 + i % 4], 'RATE',
      case when i % 3 = 1 then null else date '2018-03-01' + ((i::bigint * 7727) % 2900)::int end, null, '[]'::jsonb, ''
    from generate_series(1, ${ROWS}) as i,
      lateral (select case when i % 10 < 6 then 'serff' else 'florida_irfs' end as source,
                      case when i % 10 < 6 then 'ABCD-' || (130000000 + i) else (18 + i % 8) || '-' || lpad(i::text, 6, '0') end as ref) s;
    insert into ${DIR.carriers} (id, version, name, search, identifiers, naic_codes, aliases)
    values ('carrier_10042', 1, 'Company 10042', 'company 10042', '[{"scheme":"naic_company","value":"10042"}]', '{10042}', '{}');
    update ${CATALOG_FILINGS} set list_record = ${LIST_RECORD_SQL};
    insert into ${CATALOG_COMPANY_NAMES} (name) select distinct company_name from ${CATALOG_FILINGS} where company_name is not null;
    insert into ${CATALOG_PRODUCT_NAMES} (name) select distinct product_name from ${CATALOG_FILINGS};
    analyze ${CATALOG_FILINGS};
    analyze ${CATALOG_COMPANY_NAMES};
    analyze ${CATALOG_PRODUCT_NAMES};
    analyze ${DIR.carriers};
  `);
}

describe('catalog query plans (50,000 filings)', function () {
  this.timeout(120_000);
  let rt: Runtime;
  let dataDir: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-plans-'));
    rt = await openRuntime(loadConfig({}, { dataDir, databaseUrl: await freshDatabaseUrl(), logLevel: 'warn' }), createLogger('silent'));
    await generate(rt.db.knex);
  });
  after(async () => {
    await rt.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rule: none of the common filtered lists scans the catalog filings table sequentially', async () => {
    const knex = rt.db.knex;
    const sections: string[] = [];
    // As the endpoint runs them: ...Contains terms matched in the API's copy of the names, the page
    // carrying the names version of its snapshot.
    const names = await new CatalogNames(knex).current();
    for (const list of LISTS) {
      const q = CatalogListQuery.parse(list.query);
      const keys = sortKeys(q.sort);
      const columns = catalogListColumns(keys.map((k) => k.column), false);
      const contains = q.companyNameContains !== undefined || q.productNameContains !== undefined;
      const page = catalogListQuery(await catalogFilter(knex, q, principal(list.serff ?? true), contains ? names : undefined), keys, 51, list.after ?? null, columns, catalogPageOutput(false));
      const { text: sql, values: bindings } = contains ? withNamesVersion(page, catalogPageOutput(false)) : page;
      const res = await knex.raw(`explain (analyze, costs off, timing off, summary off) ${sql.replace(/\$(\d+)/g, '?')}`, bindings as never);
      const plan = (res.rows as { 'QUERY PLAN': string }[]).map((r) => r['QUERY PLAN']).join('\n');
      if (!list.unindexed) assert.doesNotMatch(plan, new RegExp(`Seq Scan on ${CATALOG_FILINGS}\\b`), `${list.title}:\n${plan}`);
      if (list.readsAtMost !== undefined) {
        for (const m of plan.matchAll(new RegExp(`Scan[^\\n]* on ${CATALOG_FILINGS}\\b[^\\n]*\\(actual rows=(\\d+) loops=(\\d+)\\)`, 'g'))) {
          assert.ok(Number(m[1]) * Number(m[2]) <= list.readsAtMost, `${list.title} reads ${m[1]} x ${m[2]} rows in one scan:\n${plan}`);
        }
      }
      const params = new URLSearchParams(Object.entries(list.query).flatMap(([k, v]) => (Array.isArray(v) ? v.map((x): [string, string] => [k, x]) : [[k, v] as [string, string]])));
      const note = list.serff === false ? ' (key without serff:view)' : list.after ? ` (a cursor after ${JSON.stringify(list.after)})` : '';
      sections.push(`## ${list.title}\n\n\`GET /insurance/filings?${params.toString()}\`${note}\n\n\`\`\`sql\n${sql}\n\`\`\`\n\n\`\`\`\n${plan}\n\`\`\`\n`);
    }
    if (process.env.WRITE_PLANS === '1') {
      const doc = path.resolve(__dirname, '../../../bench/results/catalog-query-plans.md');
      const intro = fs.readFileSync(doc, 'utf8').split('\n<!-- plans -->\n')[0];
      fs.writeFileSync(doc, `${intro}\n<!-- plans -->\n\n${sections.join('\n')}`);
    }
  });
  it('rule: a date-range page is planned once per connection (the bounds are literals, so the generic plan is the custom one)', async () => {
    const knex = rt.db.knex;
    const q = CatalogListQuery.parse({ submissionDateFrom: '2023-01-01', submissionDateTo: '2023-12-31', normalizedOutcome: 'APPROVED' });
    const keys = sortKeys(q.sort);
    const { text: sql, values: bindings } = catalogListQuery(await catalogFilter(knex, q, principal(true)), keys, 51, null, catalogListColumns(['submission_date'], false));
    assert.match(sql, /"submission_date" >= date '2023-01-01' and "submission_date" <= date '2023-12-31'/);
    await knex.transaction(async (trx) => {
      // One connection (the transaction's), so the statement's plan counters are that connection's.
      for (let i = 0; i < 12; i++) await queryPreparedSql(trx as unknown as Knex, sql, bindings);
      const [plans] = await queryPreparedSql<{ generic_plans: string; custom_plans: string }>(trx as unknown as Knex, 'select generic_plans, custom_plans from pg_prepared_statements where statement = $1', [sql]);
      assert.ok(Number(plans.generic_plans) > 0 && Number(plans.custom_plans) <= 5, JSON.stringify(plans));
    });
  });

  it('rule: a date bound becomes SQL text only as a validated YYYY-MM-DD date', () => {
    assert.equal(dateLiteral('2024-02-29'), "date '2024-02-29'");
    for (const bad of ["2024-01-01' or true --", '2023-02-29', '20240101']) assert.throws(() => dateLiteral(bad));
  });
});
