import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, importRecord, seedListings, upload, type Listings } from '../../support/working-filings';

describe('working filings: items', () => {
  let t: TestRuntime;
  let editor: TestCaller;
  let viewer: TestCaller;
  let scope: string;
  let l: Listings;
  let filingId: string;
  let art1: any;
  let art2: any;
  before(async () => {
    t = await startTestRuntime();
    editor = await makeCaller(t.rt);
    viewer = await makeCaller(t.rt, { tenantId: editor.tenantId });
    scope = await makeScope(t.rt, editor.tenantId, [
      { userId: editor.userId, role: 'editor' },
      { userId: viewer.userId, role: 'viewer' },
    ]);
    l = await seedListings(t.rt, scope);
    filingId = (await client(t.baseUrl, editor.apiKey).post('/managed-filings', filingBody(scope, l))).body.id;
    art1 = (await upload(t.baseUrl, editor.apiKey, scope, 'first file', { name: 'form-a.txt' })).artifact;
    art2 = (await upload(t.baseUrl, editor.apiKey, scope, 'second file', { name: 'rate-b.txt' })).artifact;
  });
  after(async () => t.close());

  const items = () => `/managed-filings/${filingId}/items`;

  it('rule: POST items answers 201 with the item; artifactVersionId is the artifact\'s current version', async () => {
    const r = await client(t.baseUrl, editor.apiKey).post(items(), { artifactId: art1.id, scheduleType: 'form', scheduleSeqNo: 1, context: 'Main form', attachments: [{ artifactId: art2.id, artifactName: 'whatever' }] });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.body.filingId, filingId);
    assert.equal(r.body.artifactId, art1.id);
    assert.equal(r.body.artifactVersionId, art1.currentVersion.id);
    assert.deepEqual(r.body.attachments, [{ artifactId: art2.id, artifactVersionId: art2.currentVersion.id, artifactName: 'rate-b.txt', artifactVersionNumber: 1 }]);
    const unscheduled = await client(t.baseUrl, editor.apiKey).post(items(), { artifactId: art2.id });
    assert.equal(unscheduled.status, 201);
    assert.equal(unscheduled.body.scheduleType, null);
    assert.equal(unscheduled.body.scheduleSeqNo, null);
    assert.equal(unscheduled.body.context, null);
    assert.deepEqual(unscheduled.body.attachments, []);
  });

  it('rule: GET items lists createdAt desc then id asc, limit 1..100, cursor bound to caller, filing and limit', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const f = (await api.post('/managed-filings', filingBody(scope, l))).body.id;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) made.push((await api.post(`/managed-filings/${f}/items`, { artifactId: art1.id })).body.id);
    const seen: any[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await api.get(`/managed-filings/${f}/items?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(r.status, 200, r.text);
      seen.push(...r.body.items);
      cursor = r.body.nextCursor;
      pages++;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(seen.map((i) => i.id), [...made].reverse());
    const first = await api.get(`/managed-filings/${f}/items?limit=2`);
    assert.equal((await api.get(`/managed-filings/${f}/items?limit=3&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await api.get(`/managed-filings/${filingId}/items?limit=2&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await client(t.baseUrl, viewer.apiKey).get(`/managed-filings/${f}/items?limit=2&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await api.get(`/managed-filings/${f}/items?limit=0`)).status, 400);
    assert.equal((await api.get(`/managed-filings/${f}/items?limit=101`)).status, 400);
    assert.equal((await client(t.baseUrl, viewer.apiKey).get(`/managed-filings/${f}/items`)).status, 200, 'read access suffices');
  });

  it('rule: PATCH edits every field; both schedule fields null unassigns', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const item = (await api.post(items(), { artifactId: art1.id, scheduleType: 'rate', scheduleSeqNo: 3 })).body;
    const r = await api.patch(`${items()}/${item.id}`, { artifactId: art2.id, scheduleType: 'supporting_document', scheduleSeqNo: 2147483647, context: 'c'.repeat(20000), attachments: [{ artifactId: art1.id, artifactName: 'x' }] });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.artifactId, art2.id);
    assert.equal(r.body.artifactVersionId, art2.currentVersion.id);
    assert.equal(r.body.scheduleType, 'supporting_document');
    assert.equal(r.body.scheduleSeqNo, 2147483647);
    assert.equal(r.body.attachments[0].artifactName, 'form-a.txt');
    assert.ok(r.body.updatedAt >= r.body.createdAt);
    const un = await api.patch(`${items()}/${item.id}`, { scheduleType: null, scheduleSeqNo: null });
    assert.equal(un.status, 200);
    assert.equal(un.body.scheduleType, null);
    assert.equal(un.body.scheduleSeqNo, null);
    const listed = (await api.get(`${items()}?limit=100`)).body.items.find((i: any) => i.id === item.id);
    assert.deepEqual(listed, un.body);
  });

  it('rule: the placement is both schedule fields or neither (setting one alone on an unscheduled item is 400; changing one of a scheduled item is fine)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    assert.equal((await api.post(items(), { artifactId: art1.id, scheduleType: 'form' })).status, 400);
    const item = (await api.post(items(), { artifactId: art1.id })).body;
    const half = await api.patch(`${items()}/${item.id}`, { scheduleSeqNo: 4 });
    assert.equal(half.status, 400);
    assert.deepEqual(half.body.details[0].path, ['scheduleType']);
    assert.equal((await api.patch(`${items()}/${item.id}`, { scheduleType: 'form', scheduleSeqNo: 4 })).status, 200);
    assert.equal((await api.patch(`${items()}/${item.id}`, { scheduleSeqNo: 5 })).body.scheduleSeqNo, 5);
    assert.equal((await api.patch(`${items()}/${item.id}`, { scheduleType: null })).status, 400);
  });

  it('rule: bounds: scheduleSeqNo 1..2147483647, context 1..20000, attachments up to 100, enums, unknown fields', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const item = (await api.post(items(), { artifactId: art1.id })).body;
    for (const body of [
      { scheduleType: 'form', scheduleSeqNo: 0 },
      { scheduleType: 'form', scheduleSeqNo: 2147483648 },
      { scheduleType: 'form', scheduleSeqNo: 1.5 },
      { scheduleType: 'exhibit', scheduleSeqNo: 1 },
      { context: '' },
      { context: 'x'.repeat(20001) },
      { attachments: Array.from({ length: 101 }, () => ({ artifactId: art1.id, artifactName: 'a' })) },
      { filingId: crypto.randomUUID() },
    ]) {
      const r = await api.patch(`${items()}/${item.id}`, body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 80));
    }
    const hundred = await api.patch(`${items()}/${item.id}`, { attachments: Array.from({ length: 100 }, () => ({ artifactId: art1.id, artifactName: 'a' })) });
    assert.equal(hundred.status, 200);
    assert.equal(hundred.body.attachments.length, 100);
  });

  it('rule: an unknown artifact, or one of another scope, is 400 with the body path', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const item = (await api.post(items(), { artifactId: art1.id })).body;
    const other = await makeScope(t.rt, editor.tenantId, [{ userId: editor.userId, role: 'editor' }]);
    const foreignArt = (await upload(t.baseUrl, editor.apiKey, other, 'elsewhere')).artifact;
    const a = await api.patch(`${items()}/${item.id}`, { artifactId: crypto.randomUUID() });
    assert.equal(a.status, 400);
    assert.deepEqual(a.body.details[0].path, ['artifactId']);
    const b = await api.patch(`${items()}/${item.id}`, { attachments: [{ artifactId: art1.id, artifactName: 'ok' }, { artifactId: foreignArt.id, artifactName: 'no' }] });
    assert.equal(b.status, 400);
    assert.deepEqual(b.body.details[0].path, ['attachments', '1', 'artifactId']);
    assert.equal((await api.post(items(), { artifactId: foreignArt.id })).status, 400);
  });

  it('rule: an item of another filing, or an unknown item, is 404', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const other = (await api.post('/managed-filings', filingBody(scope, l))).body.id;
    const foreignItem = (await api.post(`/managed-filings/${other}/items`, { artifactId: art1.id })).body;
    assert.equal((await api.patch(`${items()}/${foreignItem.id}`, { context: 'moved?' })).status, 404);
    assert.equal((await api.patch(`${items()}/${crypto.randomUUID()}`, { context: 'x' })).status, 404);
  });

  it('rule: an item id that is no item of the filing is 404 (never 500), also when it names an Object property; the filing stays writable', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const f = (await api.post('/managed-filings', filingBody(scope, l))).body.id;
    const item = (await api.post(`/managed-filings/${f}/items`, { artifactId: art1.id })).body;
    for (const id of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
      const r = await api.patch(`/managed-filings/${f}/items/${id}`, { context: 'x' });
      assert.equal(r.status, 404, `${id}: ${r.text}`);
      assert.equal(r.body.code, 'not_found');
    }
    const after = await api.patch(`/managed-filings/${f}/items/${item.id}`, { context: 'still writable' });
    assert.equal(after.status, 200, after.text);
    const events = (await api.get(`/managed-filings/${f}/events`)).body.events;
    assert.equal(events.filter((e: any) => e.type === 'ManagedFilingItemChanged').length, 1, 'the refused PATCHes appended nothing');
  });

  it('rule: edits need edit permission: a viewer gets 403, reference and null-mode filings are read-only (403)', async () => {
    const item = (await client(t.baseUrl, editor.apiKey).post(items(), { artifactId: art1.id })).body;
    assert.equal((await client(t.baseUrl, viewer.apiKey).patch(`${items()}/${item.id}`, { context: 'x' })).status, 403);
    assert.equal((await client(t.baseUrl, viewer.apiKey).post(items(), { artifactId: art1.id })).status, 403);
    for (const filingMode of ['reference', null]) {
      const id = crypto.randomUUID();
      await importRecord(t.rt, { type: 'managed_filing', scope, id, filingMode, companyId: l.companyId, jurisdictionId: l.jurisdictionId, primaryProductId: l.productId, filingType: 'rate' });
      await t.rt.engine.catchUp();
      const d = await client(t.baseUrl, editor.apiKey).get(`/managed-filings/${id}`);
      assert.equal(d.body.filingMode, filingMode);
      assert.deepEqual(d.body.permissions, { read: true, edit: false, manageAccess: false });
      assert.equal((await client(t.baseUrl, editor.apiKey).post(`/managed-filings/${id}/items`, { artifactId: art1.id })).status, 403);
      assert.equal((await client(t.baseUrl, editor.apiKey).patch(`/managed-filings/${id}`, { description: 'x' })).status, 403);
      assert.equal((await client(t.baseUrl, editor.apiKey).post(`/managed-filings/${id}/comments`, { body: 'x' })).status, 403);
    }
  });

  it('rule: 100 concurrent PATCHes of one item all succeed, last write wins, the history holds all', async function () {
    this.timeout(120_000);
    const api = client(t.baseUrl, editor.apiKey);
    const f = (await api.post('/managed-filings', filingBody(scope, l))).body.id;
    const item = (await api.post(`/managed-filings/${f}/items`, { artifactId: art1.id })).body;
    const started = Date.now();
    const rs = await Promise.all(Array.from({ length: 100 }, (_, i) => api.patch(`/managed-filings/${f}/items/${item.id}`, { context: `edit ${i}`, scheduleType: 'form', scheduleSeqNo: i + 1 })));
    const seconds = (Date.now() - started) / 1000;
    assert.deepEqual(rs.map((r) => r.status), Array(100).fill(200));
    const events = (await api.get(`/managed-filings/${f}/events?limit=500`)).body.events;
    const changes = events.filter((e: any) => e.type === 'ManagedFilingItemChanged');
    assert.equal(changes.length, 100);
    const last = changes[changes.length - 1].data.changes;
    const shown = (await api.get(`/managed-filings/${f}/items`)).body.items[0];
    assert.equal(shown.context, last.context);
    assert.equal(shown.scheduleSeqNo, last.scheduleSeqNo);
    console.log(`      100 concurrent PATCHes in ${seconds.toFixed(2)} s (${(100 / seconds).toFixed(0)} commands/s)`);
  });
});
