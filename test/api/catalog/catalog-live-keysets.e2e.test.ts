import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { carrier, carrierGroup, catalogFiling, importRecords } from '../../support/catalog-records';

/**
 * Catalog pages are live keysets (spec, GET /insurance/filings): while imports run alongside a walk,
 * a filing that existed before the walk is seen exactly once, whatever the sort and however many
 * rows tie on its keys.
 */
describe('catalog: live keyset pages under concurrent imports', function () {
  this.timeout(20_000);
  let t: TestRuntime;
  let caller: TestCaller;
  const states = ['FL', 'TX', 'CA'];
  const companies = ['Alpha Ins', 'alpha ins', 'Zeta Mutual'];
  let n = 0;
  const filing = () => {
    const i = n++;
    const d = i % 5 === 0 ? null : `202${i % 4}-0${1 + (i % 3)}-01`;
    return catalogFiling({ state: states[i % 3], companyName: companies[i % 3], submissionDate: d, dispositionDate: i % 2 ? d : null, stateStatusChangedDate: d });
  };
  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt);
    const r = await importRecords(t.rt, [carrierGroup(), carrier(), ...Array.from({ length: 60 }, filing)]);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
  });
  after(async () => t.close());

  const page = async (q: string) => {
    const r = await client(t.baseUrl, caller.apiKey).get(`/insurance/filings?${q}`);
    assert.equal(r.status, 200, r.text);
    return r.body as { filings: { id: string }[]; nextCursor: string | null };
  };

  for (const sort of [[], ['companyName'], ['state', '-dispositionDate'], ['-stateStatusChangedDate', 'companyName', 'state']]) {
    it(`rule: no duplicates and no gaps for filings present before the walk (sort ${sort.join(',') || 'default'}, imports running)`, async () => {
      const q = sort.map((s) => `&sort=${s}`).join('');
      const before = (await page(`limit=200${q}`)).filings.map((f) => f.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      const imports: Promise<unknown>[] = [];
      do {
        const p = await page(`limit=7${q}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        seen.push(...p.filings.map((f) => f.id));
        cursor = p.nextCursor;
        // Another client imports while this one reads on.
        if (imports.length < 4) imports.push(importRecords(t.rt, Array.from({ length: 5 }, filing)));
      } while (cursor);
      await Promise.all(imports);
      assert.equal(new Set(seen).size, seen.length, 'duplicates');
      const s = new Set(seen);
      assert.deepEqual(before.filter((id) => !s.has(id)), [], 'gaps');
    });
  }
});
