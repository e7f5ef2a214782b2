import assert from 'node:assert/strict';
import { firstRecords, pageRecordsStatement } from '../../queries/catalog/catalog-page-records';

describe('catalog list: a page\'s records as one text', () => {
  const rec = (n: number, extra = '') => `{"id":"00000000-0000-0000-0000-00000000000${n}","companyName":"Co ${n}${extra}"}`;
  const row = (records: string[]) => ({ records: records.length ? records.join(',') : null, rows: records.length });

  it('the statement wraps the page: its records joined in its order and counted, with its SQL and values unchanged', () => {
    const page = { sql: 'select "list_record" from "catalog_filings" where "state" in ($1) order by "submission_date" desc limit 51', bindings: ['TX'] };
    const s = pageRecordsStatement(page, { withDescription: false, versioned: false });
    assert.deepEqual(s.bindings, ['TX']);
    assert.equal(s.sql, `select string_agg("list_record", ',') as "records", count(*)::int as "rows" from (${page.sql}) as "page"`);
  });

  it('rule (names version): asked for, the names version of the same snapshot comes as a column of the one row', () => {
    const s = pageRecordsStatement({ sql: 'select 1', bindings: [] }, { withDescription: false, versioned: true });
    assert.match(s.sql, /^select \(select "xmin"::text from "projection_checkpoints" where "name" = 'catalog'\) as "names_version", string_agg\("list_record", ','\)/);
  });

  it('rule (description only on a one-source, one-reference lookup): each record gets the description as its last field', () => {
    const s = pageRecordsStatement({ sql: 'select "list_record", "description" from "catalog_filings"', bindings: [] }, { withDescription: true, versioned: false });
    assert.match(s.sql, /string_agg\(left\("list_record", -1\) \|\| ',"description":' \|\| coalesce\(to_json\("description"\)::text, 'null'\) \|\| '\}', ','\)/);
  });

  it('rule (limit, next cursor): the first `limit` records are the page; the one read past it only says that a next page exists', () => {
    const four = [rec(1), rec(2), rec(3), rec(4)];
    assert.deepEqual(firstRecords(row(four), 3), { json: four.slice(0, 3).join(','), last: rec(3), more: true });
    assert.deepEqual(firstRecords(row(four.slice(0, 3)), 3), { json: four.slice(0, 3).join(','), last: rec(3), more: false });
    assert.deepEqual(firstRecords(row(four.slice(0, 2)), 1), { json: rec(1), last: rec(1), more: true });
    assert.deepEqual(firstRecords(row([rec(1)]), 1), { json: rec(1), last: rec(1), more: false });
    assert.deepEqual(firstRecords(row([]), 50), { json: '', last: null, more: false });
  });

  it('a record boundary is never found inside a value: quotes in strings are escaped', () => {
    const tricky = [rec(1, String.raw`\",{\"id\":\"x`), rec(2, String.raw`,{\"id\":\"`), rec(3)];
    const page = firstRecords(row(tricky), 2);
    assert.equal(page.json, tricky.slice(0, 2).join(','));
    assert.equal(page.last, tricky[1]);
    assert.deepEqual(JSON.parse(`[${page.json}]`).map((r: { id: string }) => r.id.slice(-1)), ['1', '2']);
  });
});
