import assert from 'node:assert/strict';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../support/runtime';
import { filingBody, seedListings, upload } from '../working-filings/support';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('auditors: a working filing as it stood (asOf, atVersion)', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  let ana: TestCaller;
  let stranger: TestCaller;
  let id: string;
  let beforeCreate: string;
  let afterFirstEdit: string;
  const itemIds: string[] = [];
  before(async () => {
    t = await startTestRuntime();
    ana = await makeCaller(t.rt);
    stranger = await makeCaller(t.rt);
    const scope = await makeScope(t.rt, ana.tenantId, [{ userId: ana.userId, role: 'editor' }]);
    const l = await seedListings(t.rt, scope);
    const art = (await upload(t.baseUrl, ana.apiKey, scope)).artifact;
    const api = client(t.baseUrl, ana.apiKey);
    beforeCreate = new Date().toISOString();
    await tick();
    id = (await api.post('/managed-filings', filingBody(scope, l))).body.id; // v1
    assert.equal((await api.patch(`/managed-filings/${id}`, { serffTrackingNumber: 'AB-1' })).status, 200); // v2
    await tick();
    afterFirstEdit = new Date().toISOString();
    await tick();
    assert.equal((await api.patch(`/managed-filings/${id}`, { serffTrackingNumber: 'AB-2' })).status, 200); // v3
    assert.equal((await api.post(`/managed-filings/${id}/comments`, { body: 'first look' })).status, 201); // v4
    for (let i = 0; i < 2; i++) {
      const r = await api.post(`/managed-filings/${id}/items`, { artifactId: art.id }); // v5, v6
      assert.equal(r.status, 201, r.text);
      itemIds.push(r.body.id);
      await tick();
    }
    assert.equal((await api.patch(`/managed-filings/${id}/items/${itemIds[0]}`, { context: 'later note' })).status, 200); // v7
  });
  after(async () => t?.close());

  const get = (path: string, key = ana.apiKey) => client(t.baseUrl, key).get(path);

  it('rule: atVersion and asOf answer the detail as it stood, with its shape plus the stream version', async () => {
    const now = await get(`/managed-filings/${id}`);
    assert.equal(now.body.serffTrackingNumber, 'AB-2');
    assert.equal(now.body.version, undefined, 'the live detail is unchanged');
    const v1 = await get(`/managed-filings/${id}?atVersion=1`);
    assert.equal(v1.status, 200, v1.text);
    assert.deepEqual(Object.keys(v1.body).sort(), [...Object.keys(now.body), 'version'].sort());
    assert.deepEqual([v1.body.id, v1.body.serffTrackingNumber, v1.body.version], [id, null, 1]);
    const mid = await get(`/managed-filings/${id}?asOf=${encodeURIComponent(afterFirstEdit)}`);
    assert.deepEqual([mid.status, mid.body.serffTrackingNumber, mid.body.version], [200, 'AB-1', 2]);
    const latest = await get(`/managed-filings/${id}?atVersion=7`);
    assert.deepEqual({ ...latest.body, version: undefined }, { ...now.body, version: undefined });
  });

  it('rule: before the filing existed is 404 (a version not reached yet is the latest); bad values are 400 with details', async () => {
    assert.equal((await get(`/managed-filings/${id}?asOf=${encodeURIComponent(beforeCreate)}`)).status, 404);
    const beyond = await get(`/managed-filings/${id}?atVersion=8`);
    assert.deepEqual([beyond.status, beyond.body.version], [200, 7]);
    for (const [q, path] of [['asOf=yesterday', 'asOf'], ['asOf=2026-11-27T10:00:00', 'asOf'], ['atVersion=0', 'atVersion'], ['atVersion=x', 'atVersion'], [`atVersion=1&asOf=${encodeURIComponent(afterFirstEdit)}`, 'atVersion']]) {
      const r = await get(`/managed-filings/${id}?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'invalid_request', q);
      assert.deepEqual(r.body.details[0].path, [path], q);
    }
  });

  it('rule: access is as for reading now (a caller who cannot see the filing gets 404)', async () => {
    assert.equal((await get(`/managed-filings/${id}?atVersion=1`, stranger.apiKey)).status, 404);
    assert.equal((await get(`/managed-filings/${id}/items?atVersion=6`, stranger.apiKey)).status, 404);
  });

  it('rule: items and comments take the same parameters and list what stood then, paged with cursors bound to the point', async () => {
    assert.deepEqual((await get(`/managed-filings/${id}/items?atVersion=4`)).body, { items: [], nextCursor: null });
    const v6 = await get(`/managed-filings/${id}/items?atVersion=6`);
    assert.deepEqual(v6.body.items.map((i: { id: string; context: string | null }) => [i.id, i.context]), [[itemIds[1], null], [itemIds[0], null]]);
    const v7 = await get(`/managed-filings/${id}/items?atVersion=7&limit=1`);
    assert.deepEqual(v7.body.items.map((i: { id: string }) => i.id), [itemIds[1]]);
    const page2 = await get(`/managed-filings/${id}/items?atVersion=7&limit=1&cursor=${encodeURIComponent(v7.body.nextCursor)}`);
    assert.deepEqual(page2.body.items.map((i: { context: string }) => i.context), ['later note']);
    assert.equal(page2.body.nextCursor, null);
    assert.equal((await get(`/managed-filings/${id}/items?atVersion=6&limit=1&cursor=${encodeURIComponent(v7.body.nextCursor)}`)).status, 400, 'a cursor stays at its point');
    assert.deepEqual((await get(`/managed-filings/${id}/comments?atVersion=3`)).body, { comments: [], nextCursor: null });
    const c = await get(`/managed-filings/${id}/comments?atVersion=4`);
    assert.deepEqual(c.body.comments.map((x: { body: string }) => x.body), ['first look']);
    assert.deepEqual(c.body.comments, (await get(`/managed-filings/${id}/comments`)).body.comments);
    assert.deepEqual((await get(`/managed-filings/${id}/comments?atVersion=4&status=resolved`)).body.comments, []);
    assert.equal((await get(`/managed-filings/${id}/comments?asOf=${encodeURIComponent(beforeCreate)}`)).status, 404);
  });
});
