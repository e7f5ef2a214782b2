import assert from 'node:assert/strict';
import { NameLists, splitNamesVersion, withNamesVersion } from '../../../queries/catalog/catalog-names-cache';
import { sql } from '../../../infra/postgres/sql';

describe('catalog: the API\'s copy of the names tables', () => {
  // lower_name as Postgres computed it (lower() of the name).
  const lists = (companies: string[]) =>
    new NameLists('v1', {
      company_name: { names: companies, lower: companies.map((n) => n.toLowerCase()) },
      product_name: { names: ['Auto Plan'], lower: ['auto plan'] },
    });

  it('rule: ...Contains matches as a literal, case-insensitive substring (%, _ and \\ are not special), in the copy\'s order', () => {
    const names = lists(['100%_Mutual', 'A\\B Co', 'Acme Insurance', 'ACE Mutual']);
    assert.deepEqual(names.matching('company_name', '%_', 256), ['100%_Mutual']);
    assert.deepEqual(names.matching('company_name', 'a_e', 256), []);
    assert.deepEqual(names.matching('company_name', '\\', 256), ['A\\B Co']);
    assert.deepEqual(names.matching('company_name', 'mUTUAL', 256), ['100%_Mutual', 'ACE Mutual']);
    assert.deepEqual(names.matching('company_name', 'Ac', 256), ['Acme Insurance', 'ACE Mutual']);
    assert.deepEqual(names.matching('product_name', 'AUTO', 256), ['Auto Plan']);
  });

  it('rule: more names than the maximum is null (the caller filters the filings by the substring instead)', () => {
    const names = lists(['Co 1', 'Co 2', 'Co 3']);
    assert.equal(names.matching('company_name', 'co', 2), null);
    assert.deepEqual(names.matching('company_name', 'co', 3), ['Co 1', 'Co 2', 'Co 3']);
    // Memoized per maximum too.
    assert.equal(names.matching('company_name', 'co', 2), null);
  });

  it('the page statement keeps its SQL and values and adds the version of its snapshot as one more row, which splitNamesVersion takes out', () => {
    const s = withNamesVersion(sql`select "list_record", "description" from "catalog_filings" where "state" in (${'TX'}) limit 51`, ['list_record', 'description']);
    assert.deepEqual(s.values, ['TX']);
    assert.match(s.text, /^select "xmin"::text as "list_record", null::text as "description" from "projection_checkpoints" where "name" = 'catalog' union all \(select "list_record", "description" from "catalog_filings" where "state" in \(\$1\) limit 51\)$/);
    const rec = (n: number) => ({ list_record: `{"id":"${n}"}` });
    assert.deepEqual(splitNamesVersion([{ list_record: '1234' }, rec(1), rec(2)]), { rows: [rec(1), rec(2)], namesVersion: '1234' });
    assert.deepEqual(splitNamesVersion([rec(1), rec(2), { list_record: '1234' }]), { rows: [rec(1), rec(2)], namesVersion: '1234' });
    assert.deepEqual(splitNamesVersion([{ list_record: '1234' }]), { rows: [], namesVersion: '1234' });
    assert.deepEqual(splitNamesVersion([rec(1)]), { rows: [rec(1)], namesVersion: null });
  });
});
