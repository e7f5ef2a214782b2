import assert from 'node:assert/strict';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../support/runtime';
import { filingBody, seedListings, upload } from '../working-filings/support';
import { diffValues } from '../../queries/managed-filings/state-diff';

describe('auditors: field-level change history', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  let ana: TestCaller;
  let stranger: TestCaller;
  let id: string;
  let itemId: string;
  before(async () => {
    t = await startTestRuntime();
    ana = await makeCaller(t.rt, { name: 'Ana Auditor' });
    stranger = await makeCaller(t.rt);
    const scope = await makeScope(t.rt, ana.tenantId, [{ userId: ana.userId, role: 'editor' }]);
    const l = await seedListings(t.rt, scope);
    const art = (await upload(t.baseUrl, ana.apiKey, scope)).artifact;
    const api = client(t.baseUrl, ana.apiKey);
    id = (await api.post('/managed-filings', filingBody(scope, l))).body.id; // v1
    assert.equal((await api.patch(`/managed-filings/${id}`, { serffTrackingNumber: 'AB-1', description: 'first' })).status, 200); // v2
    itemId = (await api.post(`/managed-filings/${id}/items`, { artifactId: art.id })).body.id; // v3
    assert.equal((await api.patch(`/managed-filings/${id}/items/${itemId}`, { context: 'why' })).status, 200); // v4
    assert.equal((await api.post(`/managed-filings/${id}/comments`, { body: 'ok' })).status, 201); // v5
  });
  after(async () => t?.close());

  const get = (path: string, key = ana.apiKey) => client(t.baseUrl, key).get(path);

  it('rule: one entry per event, oldest first, with version, time, type, actor, request id and field changes', async () => {
    const r = await get(`/managed-filings/${id}/changes`);
    assert.equal(r.status, 200, r.text);
    const list = r.body.changes;
    assert.deepEqual(list.map((c: { version: number; type: string }) => [c.version, c.type]), [
      [1, 'ManagedFilingCreated'],
      [2, 'ManagedFilingUpdated'],
      [3, 'ManagedFilingItemAdded'],
      [4, 'ManagedFilingItemChanged'],
      [5, 'FilingCommentPosted'],
    ]);
    for (const c of list) {
      assert.deepEqual(c.actor, { userId: ana.userId, name: 'Ana Auditor' });
      assert.match(c.requestId, /\S/);
      assert.ok(!Number.isNaN(Date.parse(c.recordedAt)));
    }
    const paths = (v: number) => list[v - 1].changes.map((x: { path: string[] }) => x.path.join('.'));
    assert.ok(paths(1).includes('companyId') && paths(1).includes('filingMode'));
    assert.ok(!paths(1).includes('serffTrackingNumber'), 'null before and after is no change');
    const v2 = list[1].changes.filter((x: { path: string[] }) => x.path[0] !== 'updatedAt');
    assert.deepEqual(v2, [
      { path: ['description'], before: null, after: 'first' },
      { path: ['serffTrackingNumber'], before: null, after: 'AB-1' },
    ]);
    const added = list[2].changes.find((x: { path: string[] }) => x.path.join('.') === `items.${itemId}`);
    assert.deepEqual([added.before, added.after.id, added.after.context], [null, itemId, null]);
    const v4 = list[3].changes.map((x: { path: string[]; before: unknown; after: unknown }) => [x.path.join('.'), x.before, x.after]);
    assert.deepEqual(v4.find((x: unknown[]) => x[0] === `items.${itemId}.context`), [`items.${itemId}.context`, null, 'why']);
    assert.ok(paths(5).some((p: string) => p.startsWith('comments.')) && paths(5).some((p: string) => p.startsWith('threads.')));
  });

  it('rule: the history pages with cursors as the other lists (limit, cursor bound to the request) and needs read access', async () => {
    const p1 = await get(`/managed-filings/${id}/changes?limit=2`);
    assert.deepEqual(p1.body.changes.map((c: { version: number }) => c.version), [1, 2]);
    const p2 = await get(`/managed-filings/${id}/changes?limit=2&cursor=${encodeURIComponent(p1.body.nextCursor)}`);
    assert.deepEqual(p2.body.changes.map((c: { version: number }) => c.version), [3, 4]);
    const p3 = await get(`/managed-filings/${id}/changes?limit=2&cursor=${encodeURIComponent(p2.body.nextCursor)}`);
    assert.deepEqual([p3.body.changes.map((c: { version: number }) => c.version), p3.body.nextCursor], [[5], null]);
    assert.equal((await get(`/managed-filings/${id}/changes?limit=3&cursor=${encodeURIComponent(p1.body.nextCursor)}`)).status, 400);
    assert.equal((await get(`/managed-filings/${id}/changes?limit=0`)).status, 400);
    assert.equal((await get(`/managed-filings/${id}/changes`, stranger.apiKey)).status, 404);
  });

  it('rule: a change\'s path names the field; entries that appear or go are one change with null on the other side', () => {
    assert.deepEqual(diffValues({ a: 1, items: { x: { c: 'p' } } }, { a: 1, items: { x: { c: 'q' }, y: { c: 'n' } } }), [
      { path: ['items', 'x', 'c'], before: 'p', after: 'q' },
      { path: ['items', 'y'], before: null, after: { c: 'n' } },
    ]);
    assert.deepEqual(diffValues({ l: [1, 2] }, { l: [1, 2] }), []);
    assert.deepEqual(diffValues({ l: [1, 2] }, { l: [2] }), [{ path: ['l'], before: [1, 2], after: [2] }]);
  });
});
