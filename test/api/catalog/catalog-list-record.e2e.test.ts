import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { catalogFiling, importRecords, serffFiling } from '../../support/catalog-records';

type Rec = Record<string, any>;

/** The record's fields as imported: what the list must give back, value for value. */
function listFields(f: Rec): Rec {
  const { type: _type, description: _description, files: _files, ...fields } = f;
  return fields;
}

/**
 * The list's records are rendered as JSON by Postgres (queries/catalog/catalog-record.ts), not by
 * JSON.stringify: these pin that they come out exactly as the imported values, whatever the text holds.
 */
describe('catalog: list records rendered by the database', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  let caller: TestCaller;
  const awkward = 'Quote " backslash \\ slash / tab \t newline \n bell \u0007 accents éü CJK 保険 emoji 😀 line sep \u2028';
  const F: Record<string, Rec> = {};
  const get = (p: string) => client(t.baseUrl, caller.apiKey).get(p);

  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt, { permissions: ['serff:view'] });
    F.awkward = catalogFiling({ companyName: awkward, productName: `${awkward} product`, typeOfInsurance: '<script>&amp;</script>', description: `${awkward} description`, submissionDate: '2025-06-01' });
    F.nulls = catalogFiling({
      naicCompanyCodes: null, carrierIds: null, naicGroupCode: null, groupId: null, toiCode: null, subToiCode: null,
      submissionDate: null, dispositionDate: null, stateStatusChangedDate: null, description: null,
    });
    F.arrays = serffFiling({ naicCompanyCodes: ['12345', '00042'], carrierIds: ['carrier_12345', 'carrier_00042'], groupId: null, naicGroupCode: null, filingType: 'Rate/Rule "x"', sourceStatus: 'Closed \\ {Approved}', submissionDate: '1999-12-31' });
    const r = await importRecords(t.rt, Object.values(F));
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
  });
  after(async () => t.close());

  it('rule: list records carry the imported values exactly: escapes, non-ASCII text, nulls, arrays, dates as YYYY-MM-DD', async () => {
    // Without a content coding (fetch asks for gzip by itself): the bytes as the database rendered them.
    const r = await client(t.baseUrl, caller.apiKey).get('/insurance/filings', { 'Accept-Encoding': 'identity' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(r.text));
    assert.equal(r.body.filings.length, 3);
    for (const f of Object.values(F)) assert.deepEqual(r.body.filings.find((x: Rec) => x.id === f.id), listFields(f), f.id);
    assert.equal(r.body.nextCursor, null);
  });

  it('rule: a one-source, one-reference lookup carries the description, also when it is null or awkward text', async () => {
    for (const f of [F.awkward, F.nulls, F.arrays]) {
      const r = await get(`/insurance/filings?${new URLSearchParams({ source: f.source, sourceReference: f.sourceReference })}`);
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.filings, [{ ...listFields(f), description: f.description }]);
    }
  });

  it('rule: the list record equals the detail record without description and files; pages chain through nextCursor', async () => {
    const first = await get('/insurance/filings?limit=2');
    assert.equal(first.body.filings.length, 2);
    assert.equal(typeof first.body.nextCursor, 'string');
    const second = await get(`/insurance/filings?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    assert.equal(second.status, 200);
    assert.equal(second.body.nextCursor, null);
    const listed = [...first.body.filings, ...second.body.filings];
    assert.deepEqual(listed.map((f: Rec) => f.id), [F.awkward, F.arrays, F.nulls].map((f) => f.id));
    for (const f of listed) {
      const { description: _d, files: _f, ...detail } = (await get(`/insurance/filings/${f.id}`)).body;
      assert.deepEqual(f, detail);
    }
  });
});
