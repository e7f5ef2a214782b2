import assert from 'node:assert/strict';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { ManagedFilingCommands } from '../../../commands/managed-filings/managed-filing-commands';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings } from '../../support/working-filings';
import { alteredEnd } from '../../support/altered-end';

async function all(api: ReturnType<typeof client>, path: string, limit: number) {
  const out: any[] = [];
  let cursor: string | null = null;
  do {
    const r: any = await api.get(`${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(r.status, 200, r.text);
    out.push(...r.body.filings);
    cursor = r.body.nextCursor;
  } while (cursor);
  return out;
}

describe('working filings: the cross-scope list', () => {
  let t: TestRuntime;
  let ana: TestCaller;
  let bob: TestCaller;
  let scopes: string[];
  const ids = () => t.rt.container.get(IdentityCommands);
  before(async () => {
    t = await startTestRuntime();
    ana = await makeCaller(t.rt, { sharing: true });
    bob = await makeCaller(t.rt);
    scopes = [];
    for (let i = 0; i < 3; i++) scopes.push(await makeScope(t.rt, ana.tenantId, [{ userId: ana.userId, role: i === 2 ? 'viewer' : 'editor' }]));
  });
  after(async () => t.close());

  it('rule: every active granted scope, scope UUID asc then createdAt desc then id asc; shared filings after, each once; base fields only', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const created: Record<string, string[]> = {};
    for (const s of scopes.slice(0, 2)) {
      const l = await seedListings(t.rt, s);
      created[s] = [];
      for (let i = 0; i < 3; i++) created[s].push((await api.post('/managed-filings', filingBody(s, l))).body.id);
    }
    // Bob's tenant shares two filings into two of Ana's scopes (one of them into both: it shows once).
    const bobScope = await makeScope(t.rt, bob.tenantId, [{ userId: bob.userId, role: 'editor' }]);
    const bl = await seedListings(t.rt, bobScope);
    const bobApi = client(t.baseUrl, bob.apiKey);
    const s1 = (await bobApi.post('/managed-filings', filingBody(bobScope, bl))).body.id;
    const s2 = (await bobApi.post('/managed-filings', filingBody(bobScope, bl))).body.id;
    const wf = t.rt.container.get(ManagedFilingCommands);
    await wf.share(s1, scopes[0], { actor: 'test' });
    await wf.share(s1, scopes[2], { actor: 'test' });
    await wf.share(s2, scopes[1], { actor: 'test' });
    const bySorted = [...scopes.slice(0, 2)].sort();
    const expected = [...bySorted.flatMap((s) => [...created[s]].reverse()), s2, s1];
    for (const limit of [1, 2, 3, 7, 50]) assert.deepEqual((await all(api, '/insurance/managed-filings', limit)).map((f) => f.id), expected, `limit ${limit}`);
    const page = (await api.get('/managed-filings')).body.filings;
    assert.deepEqual(page.map((f: any) => f.id), expected);
    assert.deepEqual(Object.keys(page[0]).sort(), [
      'companyId', 'companyTrackingNumber', 'createdAt', 'description', 'displayName', 'filingMode', 'filingType', 'id', 'jurisdictionId', 'primaryProductId', 'scope', 'serffTrackingNumber', 'stateTrackingNumber', 'updatedAt',
    ].sort());
    const shared = await api.get(`/managed-filings/${s1}`);
    assert.deepEqual(shared.body.permissions, { read: true, edit: false, manageAccess: false });
    assert.equal((await api.patch(`/managed-filings/${s1}`, { description: 'mine now' })).status, 403);
    // Bob's tenant has sharing off and sees only its own.
    assert.deepEqual((await bobApi.get('/managed-filings')).body.filings.map((f: any) => f.id).sort(), [s1, s2].sort());
  });

  it('rule: a read-only key gets 403; limit is 1..100 (default 50)', async () => {
    const ro = await makeCaller(t.rt, { tenantId: ana.tenantId, readOnly: true });
    assert.equal((await client(t.baseUrl, ro.apiKey).get('/managed-filings')).status, 403);
    const api = client(t.baseUrl, ana.apiKey);
    assert.equal((await api.get('/managed-filings?limit=0')).status, 400);
    assert.equal((await api.get('/managed-filings?limit=101')).status, 400);
    assert.equal((await api.get('/managed-filings?limit=100')).status, 200);
    assert.equal((await api.get('/managed-filings?scope=x')).status, 400, 'there is no scope filter');
  });

  it('rule: a changed sharing mode makes the cursor invalid (400 invalid_cursor); shared filings disappear with sharing off', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const first = await api.get('/managed-filings?limit=2');
    assert.ok(first.body.nextCursor);
    await ids().setTenantSharing(ana.tenantId, false, { actor: 'test' });
    const r = await api.get(`/managed-filings?limit=2&cursor=${first.body.nextCursor}`);
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'invalid_cursor');
    assert.equal((await all(api, '/managed-filings', 50)).length, 6);
    await ids().setTenantSharing(ana.tenantId, true, { actor: 'test' });
  });

  it('rule: a lost scope (deactivated) makes the cursor invalid, and its filings vanish', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const first = await api.get('/managed-filings?limit=2');
    await ids().deactivateScope(scopes[1], { actor: 'test' });
    const r = await api.get(`/managed-filings?limit=2&cursor=${first.body.nextCursor}`);
    assert.equal(r.body.code, 'invalid_cursor');
    const rest = await all(api, '/managed-filings', 50);
    assert.ok(rest.every((f) => f.scope !== scopes[1]));
    assert.equal(rest.length, 4, 'three own filings and s1 (still shared into scopes[0]); s2 was shared only into the lost scope');
  });

  it('rule: the cursor is bound to limit and caller; a tampered cursor is invalid', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const first = await api.get('/managed-filings?limit=1');
    assert.equal((await api.get(`/managed-filings?limit=2&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    const other = await makeCaller(t.rt, { tenantId: ana.tenantId });
    assert.equal((await client(t.baseUrl, other.apiKey).get(`/managed-filings?limit=1&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await api.get(`/managed-filings?limit=1&cursor=${alteredEnd(first.body.nextCursor, 2)}`)).body.code, 'invalid_cursor');
  });
});
