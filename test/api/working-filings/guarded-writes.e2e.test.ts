import assert from 'node:assert/strict';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload, type Listings } from '../../support/working-filings';

/**
 * Writes whose permission check runs inside the append (one round trip): the check must count as it
 * did when it ran first, on the very next write and before anything the decider refuses.
 */
describe('working filings: permission checks inside the append', () => {
  let t: TestRuntime;
  let editor: TestCaller;
  let other: TestCaller;
  let scope: string;
  let l: Listings;
  let id: IdentityCommands;
  before(async () => {
    t = await startTestRuntime();
    id = t.rt.container.get(IdentityCommands);
    editor = await makeCaller(t.rt);
    other = await makeCaller(t.rt, { tenantId: editor.tenantId });
    scope = await makeScope(t.rt, editor.tenantId, [
      { userId: editor.userId, role: 'editor' },
      { userId: other.userId, role: 'editor' },
    ]);
    l = await seedListings(t.rt, scope);
  });
  after(async () => t.close());

  const history = async (filingId: string) => (await client(t.baseUrl, editor.apiKey).get(`/managed-filings/${filingId}/events?limit=100`)).body.events.length;

  it('rule: access revocation counts for the very next write (a downgraded grant 403, a deactivated scope 404), and a refused write appends nothing', async () => {
    const mine = await makeScope(t.rt, editor.tenantId, [
      { userId: editor.userId, role: 'editor' },
      { userId: other.userId, role: 'editor' },
    ]);
    const ml = await seedListings(t.rt, mine);
    const api = client(t.baseUrl, other.apiKey);
    const f = (await api.post('/managed-filings', filingBody(mine, ml))).body.id;
    const art = (await upload(t.baseUrl, editor.apiKey, mine, 'x')).artifact;
    const item = (await api.post(`/managed-filings/${f}/items`, { artifactId: art.id })).body;
    const thread = (await api.post(`/managed-filings/${f}/comments`, { body: 'first' })).body;
    assert.equal((await api.patch(`/managed-filings/${f}/items/${item.id}`, { context: 'one' })).status, 200);
    assert.equal((await api.patch(`/managed-filings/${f}`, { description: 'one' })).status, 200);
    const before = await history(f);
    await id.grant({ scope: mine, userId: other.userId, role: 'viewer' }, { actor: 'test' });
    assert.equal((await api.patch(`/managed-filings/${f}/items/${item.id}`, { context: 'two' })).status, 403);
    assert.equal((await api.patch(`/managed-filings/${f}`, { description: 'two' })).status, 403);
    assert.equal((await api.post(`/managed-filings/${f}/comments`, { body: 'second' })).status, 403);
    assert.equal((await api.patch(`/managed-filings/${f}/comments/${thread.id}`, { body: 'edited' })).status, 403);
    assert.equal((await api.post(`/managed-filings/${f}/comments/${thread.id}/resolve`, {})).status, 403);
    assert.equal((await api.post('/managed-filings', filingBody(mine, ml))).status, 403);
    assert.equal(await history(f), before);
    assert.equal((await client(t.baseUrl, editor.apiKey).get(`/managed-filings/${f}/items`)).body.items[0].context, 'one');
    // The editor still writes; then the scope goes away and the filing with it.
    assert.equal((await client(t.baseUrl, editor.apiKey).patch(`/managed-filings/${f}/items/${item.id}`, { context: 'three' })).status, 200);
    await id.deactivateScope(mine, { actor: 'test' });
    assert.equal((await client(t.baseUrl, editor.apiKey).patch(`/managed-filings/${f}/items/${item.id}`, { context: 'four' })).status, 404);
    assert.equal((await client(t.baseUrl, editor.apiKey).post('/managed-filings', filingBody(mine, ml))).status, 404);
  });

  it('rule: a caller who may not write hears so before anything the decider would refuse (403/404 before 400, and before a no-op)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const f = (await api.post('/managed-filings', filingBody(scope, l))).body.id;
    const art = (await upload(t.baseUrl, editor.apiKey, scope, 'y')).artifact;
    const item = (await api.post(`/managed-filings/${f}/items`, { artifactId: art.id })).body;
    const thread = (await api.post(`/managed-filings/${f}/comments`, { body: 'first' })).body;
    assert.equal((await api.post(`/managed-filings/${f}/comments/${thread.id}/resolve`, {})).status, 200);
    // What the decider refuses or ignores, for an editor:
    assert.equal((await api.patch(`/managed-filings/${f}/items/${item.id}`, { scheduleType: 'form' })).status, 400, 'only one schedule field');
    assert.equal((await api.post(`/managed-filings/${f}/comments/${thread.id}/resolve`, {})).status, 200, 'a repeated status is a no-op');
    const viewer = await makeCaller(t.rt, { tenantId: editor.tenantId });
    await id.grant({ scope, userId: viewer.userId, role: 'viewer' }, { actor: 'test' });
    const v = client(t.baseUrl, viewer.apiKey);
    assert.equal((await v.patch(`/managed-filings/${f}/items/${item.id}`, { scheduleType: 'form' })).status, 403);
    assert.equal((await v.post(`/managed-filings/${f}/comments/${thread.id}/resolve`, {})).status, 403);
    assert.equal((await v.patch(`/managed-filings/${f}/comments/${thread.id}`, { body: 'not mine' })).status, 403);
    assert.equal((await v.post('/managed-filings', filingBody(scope, l, { companyId: l.productId }))).status, 403, 'an unlisted company, from a viewer');
    const stranger = await makeCaller(t.rt);
    assert.equal((await client(t.baseUrl, stranger.apiKey).patch(`/managed-filings/${f}/items/${item.id}`, { scheduleType: 'form' })).status, 404);
    assert.equal((await client(t.baseUrl, stranger.apiKey).post('/managed-filings', filingBody(scope, l, { companyId: l.productId }))).status, 404);
    const bad = await api.post('/managed-filings', filingBody(scope, l, { companyId: l.productId }));
    assert.equal(bad.status, 400);
    assert.deepEqual(bad.body.details[0].path, ['companyId']);
  });

  it('rule: a create answers the caller\'s permissions from its role (manager: manageAccess)', async () => {
    const manager = await makeCaller(t.rt, { tenantId: editor.tenantId });
    await id.grant({ scope, userId: manager.userId, role: 'manager' }, { actor: 'test' });
    const m = await client(t.baseUrl, manager.apiKey).post('/managed-filings', filingBody(scope, l));
    assert.equal(m.status, 201);
    assert.deepEqual(m.body.permissions, { read: true, edit: true, manageAccess: true });
    const e = await client(t.baseUrl, editor.apiKey).post('/managed-filings', filingBody(scope, l));
    assert.deepEqual(e.body.permissions, { read: true, edit: true, manageAccess: false });
    const patched = await client(t.baseUrl, manager.apiKey).patch(`/managed-filings/${e.body.id}`, { description: 'by the manager' });
    assert.deepEqual(patched.body.permissions, { read: true, edit: true, manageAccess: true });
  });
});
