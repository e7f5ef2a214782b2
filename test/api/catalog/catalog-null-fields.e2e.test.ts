import assert from 'node:assert/strict';
import { catalogFiling, file, importRecords } from '../../support/catalog-records';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';

/**
 * Spec, Resources: "Unless a field is marked required, it may be null when the value is missing". A catalog
 * filing whose source gives no product, type of insurance, sub-type, filing type, status or business type is
 * imported with those fields null and served with them null; filters on them never match it.
 */
describe('catalog filings with missing text fields', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  const missing = { productName: null, typeOfInsurance: null, subTypeOfInsurance: null, filingType: null, sourceStatus: null, businessType: null };
  const bare = catalogFiling({ ...missing, sourceReference: '26-000404', files: [file({ text: { pages: ['A bare wildfire notice'] } })] });
  const { productName: _p, businessType: _b, ...absent } = catalogFiling({ sourceReference: '26-000405' });

  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt, { permissions: ['serff:view'] });
    const r = await importRecords(t.rt, [bare, absent]);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
  });
  after(async () => t.close());
  const get = (p: string) => client(t.baseUrl, caller.apiKey).get(p);

  it('rule: a text field the record gives as null (or leaves out) is imported and served as null in the list and the detail', async () => {
    const list = await get('/insurance/filings');
    const one = list.body.filings.find((f: { id: string }) => f.id === bare.id);
    for (const k of Object.keys(missing)) assert.equal(one[k], null, k);
    const detail = await get(`/insurance/filings/${bare.id}`);
    for (const k of Object.keys(missing)) assert.equal(detail.body[k], null, k);
    const other = list.body.filings.find((f: { id: string }) => f.id === absent.id);
    assert.equal(other.productName, null);
    assert.equal(other.businessType, null);
  });

  it('rule: filters on a missing field never match the filing; it is still found by its other fields and by search', async () => {
    assert.deepEqual((await get('/insurance/filings?productNameContains=a')).body.filings.map((f: { id: string }) => f.id), []);
    const byState = await get(`/insurance/filings?source=florida_irfs&sourceReference=26-000404`);
    assert.deepEqual(byState.body.filings.map((f: { id: string }) => f.id), [bare.id]);
    const search = await client(t.baseUrl, caller.apiKey).post('/filings/search', { query: 'wildfire notice', dataScope: 'all' });
    assert.equal(search.status, 200);
    assert.deepEqual(search.body.filings.map((f: { id: string }) => f.id), [bare.id]);
    assert.equal(search.body.filings[0].productName, null);
  });
});
