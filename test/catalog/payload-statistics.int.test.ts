import assert from 'node:assert/strict';
import { startTestRuntime, type TestRuntime } from '../support/runtime';

/**
 * Columns that are only ever read whole carry no planner statistics: autoanalyze, which an import sets off
 * again and again as the tables grow, would otherwise sort sampled event documents, blobs and list records.
 * The columns that filters and sorts use keep theirs.
 */
describe('import: no statistics on payload columns', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  before(async () => (t = await startTestRuntime()));
  after(async () => t.close());

  it('rule: event payloads, blob contents and the catalog wide columns have statistics target 0; filtered columns keep the default', async () => {
    const r = await t.rt.db.knex.raw(`
      select c.relname || '.' || a.attname as col, coalesce(a.attstattarget, -1) as target
      from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relname in ('es_events', 'blob_small', 'catalog_filings') and c.relkind = 'r' and a.attnum > 0 and not a.attisdropped`);
    const target = new Map((r.rows as { col: string; target: number }[]).map((x) => [x.col, Number(x.target)]));
    for (const col of ['es_events.data', 'es_events.metadata', 'blob_small.content', 'catalog_filings.list_record', 'catalog_filings.description', 'catalog_filings.files'])
      assert.equal(target.get(col), 0, col);
    for (const col of ['es_events.stream_id', 'catalog_filings.state', 'catalog_filings.submission_date', 'catalog_filings.company_name'])
      assert.equal(target.get(col), -1, col);
  });
});
