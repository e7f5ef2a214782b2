import assert from 'node:assert/strict';
import { PageBounds, boundPredicate } from '../../queries/catalog/page-bounds';
import { keysetPositionOf, recordDate } from '../../queries/catalog/catalog-record';
import { listRecordJson } from '../../projections/catalog/catalog-list-record';

describe('catalog: bounds of repeated first pages (page-bounds.ts)', () => {
  const record = (o: Record<string, unknown>) =>
    listRecordJson({
      id: '6ffa23a9-f958-4ebb-b1e1-4d0676f98fe1', source: 'serff', source_reference: 'ABCD-1', state: 'MO',
      company_name: 'Company "submissionDate":"1999-01-01" ,"submissionDate":null', naic_company_codes: ['10045'], naic_group_code: null,
      carrier_ids: null, group_id: null, product_name: 'P', type_of_insurance: 'T', sub_type_of_insurance: 'S', toi_code: null, sub_toi_code: null,
      filing_type: 'Rate', source_status: 'x', submission_date: '2025-11-08', disposition_date: null, business_type: 'b',
      normalized_outcome: 'APPROVED', filing_type_normalized: 'RATE', state_status_changed_date: '2024-02-29', ...o,
    } as never);

  it('rule: a record\'s date is read as JSON.parse reads it, also when other fields contain the field\'s name', () => {
    const r = record({});
    assert.equal(recordDate(r, 'submission_date'), '2025-11-08');
    assert.equal(recordDate(r, 'disposition_date'), null);
    assert.equal(recordDate(r, 'state_status_changed_date'), '2024-02-29');
    assert.equal(recordDate(record({ submission_date: null }), 'submission_date'), null);
  });

  it('rule: the keyset position read in place is the one JSON.parse reads (date keys and the id; other keys parse the record)', () => {
    const r = record({ disposition_date: '2023-01-31' });
    const keys = (...cs: string[]) => cs.map((column) => ({ column, desc: true }));
    for (const k of [keys('submission_date'), keys('disposition_date', 'state_status_changed_date'), keys('company_name', 'submission_date'), keys('state')]) {
      const parsed = JSON.parse(r) as Record<string, string | null>;
      const field: Record<string, string> = { submission_date: 'submissionDate', disposition_date: 'dispositionDate', state_status_changed_date: 'stateStatusChangedDate', company_name: 'companyName', state: 'state' };
      assert.deepEqual(keysetPositionOf(r, k), { v: k.map((x) => parsed[field[x.column]]), id: parsed.id });
    }
  });

  it('rule: the bound keeps a prefix of the order: at or after it descending, at or before it ascending', () => {
    assert.equal(boundPredicate({ column: 'submission_date', desc: true }, '2025-11-08'), `"submission_date" >= date '2025-11-08'`);
    assert.equal(boundPredicate({ column: 'disposition_date', desc: false }, '2025-11-08'), `"disposition_date" <= date '2025-11-08'`);
    assert.throws(() => boundPredicate({ column: 'company_name', desc: false }, 'x'));
    assert.throws(() => boundPredicate({ column: 'submission_date', desc: true }, `2025-01-01' or true --`));
    assert.equal(PageBounds.applies([{ column: 'submission_date', desc: true }]), true);
    assert.equal(PageBounds.applies([{ column: 'company_name', desc: true }, { column: 'submission_date', desc: true }]), false);
  });

  it('rule: a bound is learned from the row after the page, and forgotten when there is none or its value is null', () => {
    const bounds = new PageBounds();
    const key = 'true|{"companyNameContains":"company 1004","limit":50}';
    const first = { column: 'submission_date', desc: true };
    bounds.learn(key, record({}), first);
    assert.equal(bounds.get(key), '2025-11-08');
    bounds.learn(key, record({ submission_date: '2026-01-02' }), first);
    assert.equal(bounds.get(key), '2026-01-02');
    bounds.learn(key, record({ submission_date: null }), first);
    assert.equal(bounds.get(key), undefined);
    bounds.learn(key, record({}), first);
    bounds.learn(key, null, first);
    assert.equal(bounds.get(key), undefined);
    const long = `${key}${'x'.repeat(3_000)}`;
    bounds.learn(long, record({}), first);
    assert.equal(bounds.get(long), undefined, 'long keys are not kept');
  });
});
