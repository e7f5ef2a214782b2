import assert from 'node:assert/strict';
import type { CatalogFilingFields } from '../../src/domain/events/catalog';
import { CatalogProjector } from '../../projections/catalog/catalog-projector';
import { CATALOG_FILINGS } from '../../src/read-models/catalog';
import { LIST_RECORD_SQL } from '../../src/read-models/catalog-list-record';
import { toCatalogFiling, type CatalogRow } from '../../queries/catalog/catalog-record';
import { aFiling } from '../support/catalog-filing-mother';
// The app's pg type parsers (dates as the YYYY-MM-DD text the detail returns).
import '../../infra/postgres/database';
import { ProjectorBench, inStreams } from '../support/projector-batches';

const AWKWARD = 'Quote " backslash \\ slash / tab \t newline \n cr \r bell \u0007 del \u007f formfeed \f accents éü CJK 保険 emoji 😀 line sep \u2028 para \u2029 <&>';

/**
 * The list record is rendered once, by the projector, and stored (catalog_filings.list_record). These
 * pin that text to what Postgres itself renders from the row's columns (row_to_json, which served the
 * list before and may fill the column in SQL) and to the detail's record (toCatalogFiling), byte for byte.
 */
describe('catalog: stored list records', function () {
  this.timeout(120_000);
  let bench: ProjectorBench;
  before(async () => (bench = await ProjectorBench.open()));
  after(async () => bench.close());

  it('rule: the stored list record is exactly row_to_json of the record columns and JSON.stringify of toCatalogFiling', async () => {
    const filings: CatalogFilingFields[] = [
      aFiling(),
      aFiling({ companyName: AWKWARD, productName: `${AWKWARD} product`, typeOfInsurance: '{"not":"json"}', sourceStatus: 'Closed \\ {Approved}' }),
      aFiling({ naicCompanyCodes: null, carrierIds: null, naicGroupCode: null, groupId: null, toiCode: null, subToiCode: null, submissionDate: null, dispositionDate: null, stateStatusChangedDate: null, description: null }),
      aFiling({ source: 'serff', naicCompanyCodes: [], carrierIds: [], submissionDate: '1999-12-31', dispositionDate: '0001-01-01', stateStatusChangedDate: '9999-12-31' }),
      aFiling({ naicCompanyCodes: ['12345', '00042', 'quo"te'], carrierIds: ['carrier_12345', 'carrier_00042'] }),
    ];
    const p = new CatalogProjector();
    const t = await bench.tables(p, `lr${Date.now().toString(36)}`);
    const events = inStreams(filings.map((filing) => ({ stream: `catalogFiling-${filing.id}`, type: 'CatalogFilingImported', data: { filing, files: [] } })));
    await bench.apply(p, t, events, 'all');
    const res = await bench.knex.raw(`select *, ${LIST_RECORD_SQL} as by_postgres from ?? order by id`, [t(CATALOG_FILINGS)]);
    const rows = res.rows as (CatalogRow & { list_record: string; by_postgres: string })[];
    assert.equal(rows.length, filings.length);
    for (const row of rows) {
      assert.equal(row.list_record, row.by_postgres, row.id);
      assert.equal(row.list_record, JSON.stringify(toCatalogFiling(row, false)), row.id);
    }
  });
});
