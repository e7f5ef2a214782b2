import assert from 'node:assert/strict';
import { ManagedFilingCommands } from '../../../commands/managed-filings/managed-filing-commands';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload, type Listings } from '../../support/working-filings';

type Api = ReturnType<typeof client>;

/**
 * The isolation matrix: for every working-filing route, the owner (editor), a viewer of the scope, a
 * user of the same tenant without a grant, and a manager of another tenant. 404 for what a caller
 * cannot see, 403 for what it can see but not change. Denied callers go first, so the owner's own
 * successful change never hides a leak.
 */
describe('working filings: isolation matrix (tenants, scopes, roles)', () => {
  let t: TestRuntime;
  let owner: TestCaller;
  let viewer: TestCaller;
  let ungranted: TestCaller;
  let foreign: TestCaller;
  let scope: string;
  let f: string;
  let item: string;
  let comment: string;
  let artifact: string;
  let token: string;
  let foreignScope: string;
  let foreignListings: Listings;
  let listings: Listings;
  before(async () => {
    t = await startTestRuntime();
    owner = await makeCaller(t.rt);
    viewer = await makeCaller(t.rt, { tenantId: owner.tenantId });
    ungranted = await makeCaller(t.rt, { tenantId: owner.tenantId });
    foreign = await makeCaller(t.rt, { sharing: true });
    scope = await makeScope(t.rt, owner.tenantId, [
      { userId: owner.userId, role: 'editor' },
      { userId: viewer.userId, role: 'viewer' },
    ]);
    await makeScope(t.rt, owner.tenantId, [{ userId: ungranted.userId, role: 'manager' }]);
    foreignScope = await makeScope(t.rt, foreign.tenantId, [{ userId: foreign.userId, role: 'manager' }]);
    foreignListings = await seedListings(t.rt, foreignScope);
    const l = await seedListings(t.rt, scope);
    listings = l;
    const api = client(t.baseUrl, owner.apiKey);
    f = (await api.post('/managed-filings', filingBody(scope, l))).body.id;
    const up = await upload(t.baseUrl, owner.apiKey, scope, 'isolated bytes');
    artifact = up.artifact.id;
    token = up.token;
    item = (await api.post(`/managed-filings/${f}/items`, { artifactId: artifact })).body.id;
    comment = (await api.post(`/managed-filings/${f}/comments`, { body: 'owner note' })).body.id;
  });
  after(async () => t.close());

  const matrix: [string, (a: Api) => Promise<{ status: number }>, [number, number, number, number]][] = [
    ['GET filing', (a) => a.get(`/managed-filings/${f}`), [200, 200, 404, 404]],
    ['PATCH filing', (a) => a.patch(`/managed-filings/${f}`, { description: 'changed' }), [200, 403, 404, 404]],
    ['GET items', (a) => a.get(`/managed-filings/${f}/items`), [200, 200, 404, 404]],
    ['POST item', (a) => a.post(`/managed-filings/${f}/items`, { artifactId: artifact }), [201, 403, 404, 404]],
    ['PATCH item', (a) => a.patch(`/managed-filings/${f}/items/${item}`, { context: 'changed' }), [200, 403, 404, 404]],
    ['GET comments', (a) => a.get(`/managed-filings/${f}/comments`), [200, 200, 404, 404]],
    ['POST comment', (a) => a.post(`/managed-filings/${f}/comments`, { body: 'hi' }), [201, 403, 404, 404]],
    ['PATCH comment', (a) => a.patch(`/managed-filings/${f}/comments/${comment}`, { body: 'edited' }), [200, 403, 404, 404]],
    ['resolve thread', (a) => a.post(`/managed-filings/${f}/comments/${comment}/resolve`, {}), [200, 403, 404, 404]],
    ['reopen thread', (a) => a.post(`/managed-filings/${f}/comments/${comment}/reopen`, {}), [200, 403, 404, 404]],
    ['GET events', (a) => a.get(`/managed-filings/${f}/events`), [200, 200, 404, 404]],
    ['GET artifact', (a) => a.get(`/artifacts/${artifact}`), [200, 200, 404, 404]],
    ['POST upload', (a) => a.post('/files/uploads', { scope, name: 'x.txt', mimeType: 'text/plain', size: 1 }), [201, 403, 404, 404]],
    ['GET companies', (a) => a.get(`/insurance/managed-filings/companies?scope=${scope}`), [200, 200, 404, 404]],
    ['POST products', (a) => a.post('/insurance/managed-filings/products', { scope }), [200, 200, 404, 404]],
    ['DELETE comment', (a) => a.delete(`/managed-filings/${f}/comments/${comment}`), [204, 403, 404, 404]],
  ];

  for (const [name, call, [own, view, ungr, frgn]] of matrix) {
    it(`rule: ${name}: owner ${own}, viewer ${view}, ungranted ${ungr}, other tenant ${frgn}`, async () => {
      assert.equal((await call(client(t.baseUrl, foreign.apiKey))).status, frgn, 'other tenant');
      assert.equal((await call(client(t.baseUrl, ungranted.apiKey))).status, ungr, 'ungranted');
      assert.equal((await call(client(t.baseUrl, viewer.apiKey))).status, view, 'viewer');
      assert.equal((await call(client(t.baseUrl, owner.apiKey))).status, own, 'owner');
    });
  }

  it('rule: upload completion of another scope\'s token is a per-file PERMISSION_DENIED for everyone but its scope\'s editors', async () => {
    for (const c of [foreign, ungranted, viewer]) {
      const r = await client(t.baseUrl, c.apiKey).post('/files/uploads/complete', { confirmations: [{ uploadToken: token }] });
      assert.equal(r.status, 200);
      assert.equal(r.body.results[0].error.code, 'PERMISSION_DENIED');
    }
  });

  it('rule: the cross-scope list shows the filing to its scope\'s members only', async () => {
    const ids = async (c: TestCaller) => (await client(t.baseUrl, c.apiKey).get('/managed-filings')).body.filings.map((x: any) => x.id);
    assert.ok((await ids(owner)).includes(f));
    assert.ok((await ids(viewer)).includes(f));
    assert.ok(!(await ids(ungranted)).includes(f));
    assert.ok(!(await ids(foreign)).includes(f));
  });

  it('rule: another tenant cannot reference a foreign artifact in its own filing (400, as an unknown artifact)', async () => {
    const api = client(t.baseUrl, foreign.apiKey);
    const own = (await api.post('/managed-filings', filingBody(foreignScope, foreignListings))).body.id;
    const r = await api.post(`/managed-filings/${own}/items`, { artifactId: artifact });
    assert.equal(r.status, 400);
    assert.deepEqual(r.body.details[0].path, ['artifactId']);
    assert.equal((await api.post('/files/uploads', { scope: foreignScope, name: 'x.txt', mimeType: 'text/plain', size: 1, artifactId: artifact })).status, 404);
  });

  it('rule: a tenant a filing is shared into does not see, in its history, that it is shared into another tenant\'s scope', async () => {
    const shared = (await client(t.baseUrl, owner.apiKey).post('/managed-filings', filingBody(scope, listings))).body.id;
    const third = await makeCaller(t.rt, { sharing: true });
    const thirdScope = await makeScope(t.rt, third.tenantId, [{ userId: third.userId, role: 'viewer' }]);
    const wf = t.rt.container.get(ManagedFilingCommands);
    await wf.share(shared, foreignScope, { actor: 'test' });
    await wf.share(shared, thirdScope, { actor: 'test' });
    const history = async (c: TestCaller) => {
      const r = await client(t.baseUrl, c.apiKey).get(`/managed-filings/${shared}/events`);
      assert.equal(r.status, 200, r.text);
      return r.body.events as any[];
    };
    const names = (events: any[], tenantId: string) => events.filter((e) => JSON.stringify(e).includes(tenantId)).map((e) => e.type);
    assert.deepEqual(names(await history(owner), third.tenantId), ['ManagedFilingShared'], 'the home tenant sees every share');
    assert.deepEqual(names(await history(foreign), third.tenantId), [], 'the third tenant is another tenant\'s data');
    assert.deepEqual(names(await history(foreign), foreign.tenantId), ['ManagedFilingShared'], 'its own share stays');
    assert.deepEqual(names(await history(third), foreign.tenantId), []);
    assert.ok(!JSON.stringify(await history(foreign)).includes(thirdScope.slice(3)));
  });
});
