import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings } from '../../support/working-filings';

describe('working filings: comments', () => {
  let t: TestRuntime;
  let ana: TestCaller;
  let eve: TestCaller;
  let mia: TestCaller;
  let viewer: TestCaller;
  let filingId: string;
  before(async () => {
    t = await startTestRuntime();
    ana = await makeCaller(t.rt);
    eve = await makeCaller(t.rt, { tenantId: ana.tenantId });
    mia = await makeCaller(t.rt, { tenantId: ana.tenantId });
    viewer = await makeCaller(t.rt, { tenantId: ana.tenantId });
    const scope = await makeScope(t.rt, ana.tenantId, [
      { userId: ana.userId, role: 'editor' },
      { userId: eve.userId, role: 'editor' },
      { userId: mia.userId, role: 'manager' },
      { userId: viewer.userId, role: 'viewer' },
    ]);
    const l = await seedListings(t.rt, scope);
    filingId = (await client(t.baseUrl, ana.apiKey).post('/managed-filings', filingBody(scope, l))).body.id;
  });
  after(async () => t.close());
  const path = () => `/managed-filings/${filingId}/comments`;

  it('rule: POST starts a thread or replies; the comment has the contract shape', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const root = await api.post(path(), { body: 'Is the rate exhibit final?' });
    assert.equal(root.status, 201, root.text);
    assert.deepEqual(
      { ...root.body, id: undefined, createdAt: undefined },
      {
        id: undefined,
        threadId: root.body.id,
        parentCommentId: null,
        commentType: 'message',
        actor: ana.userId,
        body: 'Is the rate exhibit final?',
        data: {},
        deleted: false,
        editedAt: null,
        createdAt: undefined,
        status: 'open',
        anchor: { type: 'whole_resource' },
        target: { type: 'record', recordType: 'filings', recordId: filingId, field: null },
      },
    );
    const reply = await client(t.baseUrl, eve.apiKey).post(path(), { body: 'Yes.', parentCommentId: root.body.id });
    assert.equal(reply.body.threadId, root.body.id);
    assert.equal(reply.body.parentCommentId, root.body.id);
    const nested = await api.post(path(), { body: 'Thanks', parentCommentId: reply.body.id });
    assert.equal(nested.body.threadId, root.body.id);
    assert.equal((await api.post(path(), { body: 'x', parentCommentId: crypto.randomUUID() })).status, 400);
    assert.equal((await api.post(path(), { body: '' })).status, 400);
    assert.equal((await client(t.baseUrl, viewer.apiKey).post(path(), { body: 'viewer' })).status, 403);
  });

  it('rule: PATCH edits the body and sets editedAt (author only); DELETE leaves a tombstone with its body emptied', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const c = (await api.post(path(), { body: 'draft' })).body;
    assert.equal((await client(t.baseUrl, eve.apiKey).patch(`${path()}/${c.id}`, { body: 'hijack' })).status, 403);
    const edited = await api.patch(`${path()}/${c.id}`, { body: 'final' });
    assert.equal(edited.status, 200);
    assert.equal(edited.body.body, 'final');
    assert.ok(edited.body.editedAt);
    assert.equal((await client(t.baseUrl, eve.apiKey).delete(`${path()}/${c.id}`)).status, 403, 'not the author, not a manager');
    assert.equal((await api.delete(`${path()}/${c.id}`)).status, 204);
    assert.equal((await api.delete(`${path()}/${c.id}`)).status, 204, 'deleting again changes nothing');
    assert.equal((await api.patch(`${path()}/${c.id}`, { body: 'again' })).status, 409);
    const listed = (await api.get(`${path()}?limit=100`)).body.comments.find((x: any) => x.id === c.id);
    assert.equal(listed.deleted, true);
    assert.equal(listed.body, '');
    const other = (await api.post(path(), { body: 'manager may remove' })).body;
    assert.equal((await client(t.baseUrl, mia.apiKey).delete(`${path()}/${other.id}`)).status, 204);
    assert.equal((await api.patch(`${path()}/${crypto.randomUUID()}`, { body: 'x' })).status, 404);
  });

  it('rule: resolve and reopen with {} append status events; the status filter uses the current thread state', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const f = (await api.post('/managed-filings', pick((await api.get(`/managed-filings/${filingId}`)).body))).body.id;
    const p = `/managed-filings/${f}/comments`;
    const a = (await api.post(p, { body: 'thread A' })).body;
    const b = (await api.post(p, { body: 'thread B' })).body;
    const a2 = (await api.post(p, { body: 'reply A', parentCommentId: a.id })).body;
    const resolved = await api.post(`${p}/${a2.id}/resolve`, {});
    assert.equal(resolved.status, 200, resolved.text);
    assert.equal(resolved.body.id, a.id);
    assert.equal(resolved.body.status, 'resolved');
    assert.equal((await api.post(`${p}/${a.id}/resolve`, {})).status, 200, 'resolving a resolved thread changes nothing');
    assert.equal((await api.post(`${p}/${a.id}/resolve`, { why: 1 })).status, 400);
    let timeline = (await api.get(p)).body.comments;
    assert.deepEqual(timeline.map((c: any) => [c.commentType, c.threadId === a.id ? 'A' : 'B', c.status]), [
      ['message', 'A', 'resolved'],
      ['message', 'B', 'open'],
      ['message', 'A', 'resolved'],
      ['status_change', 'A', 'resolved'],
    ]);
    assert.deepEqual(timeline[3].data, { status: 'resolved', previousStatus: 'open' });
    assert.deepEqual((await api.get(`${p}?status=open`)).body.comments.map((c: any) => c.id), [b.id]);
    assert.equal((await api.get(`${p}?status=resolved`)).body.comments.length, 3);
    await api.post(`${p}/${a.id}/reopen`, {});
    timeline = (await api.get(`${p}?status=open`)).body.comments;
    assert.equal(timeline.length, 5);
    assert.equal(timeline[4].data.status, 'open');
    assert.equal((await api.get(`${p}?status=closed`)).status, 400);
  });

  it('rule: a comment id that is no comment of the filing is 404 (never 500) on every comment write, also when it names an Object property; nothing is appended', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const f = (await api.post('/managed-filings', pick((await api.get(`/managed-filings/${filingId}`)).body))).body.id;
    const p = `/managed-filings/${f}/comments`;
    await api.post(p, { body: 'the only thread' });
    for (const id of ['constructor', '__proto__', 'toString', crypto.randomUUID()]) {
      for (const r of [await api.post(`${p}/${id}/resolve`, {}), await api.post(`${p}/${id}/reopen`, {}), await api.patch(`${p}/${id}`, { body: 'x' }), await api.delete(`${p}/${id}`)]) {
        assert.equal(r.status, 404, `${id}: ${r.text}`);
        assert.equal(r.body.code, 'not_found');
      }
    }
    const timeline = (await api.get(p)).body.comments;
    assert.deepEqual(timeline.map((c: any) => [c.commentType, c.body]), [['message', 'the only thread']]);
    assert.equal((await api.post(p, { body: 'still writable' })).status, 201);
  });

  it('rule: comments list ascending by creation, limit 1..100, cursor bound to caller, filing, status and limit', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const all: string[] = [];
    let cursor: string | null = null;
    do {
      const r: any = await api.get(`${path()}?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(r.status, 200);
      all.push(...r.body.comments.map((c: any) => c.createdAt + c.id));
      cursor = r.body.nextCursor;
    } while (cursor);
    assert.deepEqual(all, [...all].sort());
    const first = await api.get(`${path()}?limit=1`);
    assert.equal((await api.get(`${path()}?limit=1&status=open&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await api.get(`${path()}?limit=2&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await client(t.baseUrl, eve.apiKey).get(`${path()}?limit=1&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await api.get(`${path()}?limit=101`)).status, 400);
    assert.equal((await client(t.baseUrl, viewer.apiKey).get(path())).status, 200, 'read access suffices');
  });

  it('rule: GET /managed-filings/{id}/events is the filing\'s full history in order', async () => {
    const api = client(t.baseUrl, ana.apiKey);
    const r = await api.get(`/managed-filings/${filingId}/events?limit=3`);
    assert.equal(r.status, 200);
    assert.equal(r.body.events[0].type, 'ManagedFilingCreated');
    assert.deepEqual(r.body.events.map((e: any) => e.version), [1, 2, 3]);
    assert.equal(r.body.events[0].metadata.actor, ana.userId);
    assert.ok(typeof r.body.events[0].position === 'number' && r.body.events[0].recordedAt);
    const next = await api.get(`/managed-filings/${filingId}/events?limit=3&cursor=${r.body.nextCursor}`);
    assert.equal(next.body.events[0].version, 4);
    const store = await t.rt.store.readStream(`managedFiling-${filingId}`);
    const all = (await api.get(`/managed-filings/${filingId}/events?limit=500`)).body.events;
    assert.deepEqual(all.map((e: any) => [e.type, e.version, e.position]), store.map((e) => [e.type, e.version, Number(e.position.prepare)]));
  });
});

function pick(f: any) {
  return { scope: f.scope, companyId: f.companyId, jurisdictionId: f.jurisdictionId, primaryProductId: f.primaryProductId, filingType: f.filingType };
}
