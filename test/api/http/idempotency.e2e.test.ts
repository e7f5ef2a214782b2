import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload, type Listings } from '../../support/working-filings';

describe('safe retries: Idempotency-Key on POST writes (extension)', () => {
  let t: TestRuntime;
  let editor: TestCaller;
  let other: TestCaller;
  let scope: string;
  let l: Listings;
  before(async () => {
    t = await startTestRuntime();
    editor = await makeCaller(t.rt);
    other = await makeCaller(t.rt, { tenantId: editor.tenantId });
    scope = await makeScope(t.rt, editor.tenantId, [
      { userId: editor.userId, role: 'editor' },
      { userId: other.userId, role: 'editor' },
    ]);
    l = await seedListings(t.rt, scope);
  });
  after(async () => t.close());

  const created = async () => Number((await t.rt.db.knex('es_events').where({ type: 'ManagedFilingCreated' }).count<{ count: string }[]>('* as count'))[0].count);
  const withKey = (key: string) => ({ 'Idempotency-Key': key });

  it('rule: a retry with the same key and body gets the first answer (status, body, Location) and the log holds the command once', async () => {
    const before = await created();
    const key = crypto.randomUUID();
    const first = await client(t.baseUrl, editor.apiKey).post('/managed-filings', filingBody(scope, l, { description: 'Once' }), withKey(key));
    assert.equal(first.status, 201, first.text);
    assert.equal(first.headers.get('idempotent-replayed'), null);
    // The same fields in another order, through the other path form of the operation: the same request.
    const { scope: s, ...rest } = filingBody(scope, l, { description: 'Once' });
    const retry = await client(t.baseUrl, editor.apiKey).post('/insurance/managed-filings', { ...rest, scope: s }, withKey(key));
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.headers.get('location'), first.headers.get('location'));
    assert.equal(retry.text, first.text);
    assert.notEqual(retry.headers.get('x-request-id'), first.headers.get('x-request-id'));
    assert.equal((await created()) - before, 1);
  });

  it('rule: the same key with a different body is 422 idempotency_key_reused and writes nothing', async () => {
    const key = crypto.randomUUID();
    const api = client(t.baseUrl, editor.apiKey);
    assert.equal((await api.post('/managed-filings', filingBody(scope, l, { description: 'A' }), withKey(key))).status, 201);
    const before = await created();
    const r = await api.post('/managed-filings', filingBody(scope, l, { description: 'B' }), withKey(key));
    assert.equal(r.status, 422, r.text);
    assert.equal(r.body.code, 'idempotency_key_reused');
    assert.equal(r.body.requestId, r.headers.get('x-request-id'));
    assert.equal(await created(), before);
  });

  it('rule: keys belong to the caller: another user with the same key and body gets its own write', async () => {
    const key = crypto.randomUUID();
    const before = await created();
    const a = await client(t.baseUrl, editor.apiKey).post('/managed-filings', filingBody(scope, l), withKey(key));
    const b = await client(t.baseUrl, other.apiKey).post('/managed-filings', filingBody(scope, l), withKey(key));
    assert.equal(a.status, 201, a.text);
    assert.equal(b.status, 201, b.text);
    assert.notEqual(a.body.id, b.body.id);
    assert.equal(b.headers.get('idempotent-replayed'), null);
    assert.equal((await created()) - before, 2);
  });

  it('rule: concurrent duplicates run the command once; the others get the first answer or 409 idempotency_key_in_use with Retry-After', async () => {
    const key = crypto.randomUUID();
    const before = await created();
    const api = client(t.baseUrl, editor.apiKey);
    const answers = await Promise.all(Array.from({ length: 8 }, () => api.post('/managed-filings', filingBody(scope, l, { description: 'Raced' }), withKey(key))));
    const ok = answers.filter((r) => r.status === 201);
    const busy = answers.filter((r) => r.status === 409);
    assert.equal(ok.length + busy.length, answers.length, answers.map((r) => r.status).join(','));
    assert.ok(ok.length >= 1);
    assert.equal(new Set(ok.map((r) => r.body.id)).size, 1);
    for (const r of busy) {
      assert.equal(r.body.code, 'idempotency_key_in_use');
      assert.equal(r.headers.get('retry-after'), '1');
    }
    assert.equal((await created()) - before, 1);
    // Once the first has finished, a retry gets its answer.
    const after = await api.post('/managed-filings', filingBody(scope, l, { description: 'Raced' }), withKey(key));
    assert.equal(after.status, 201);
    assert.equal(after.body.id, ok[0].body.id);
  });

  it('rule: the other POST writes honour the key too (items, comments, upload start): a retry answers the first result', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const filingId = (await api.post('/managed-filings', filingBody(scope, l))).body.id;
    const key = crypto.randomUUID();
    const c1 = await api.post(`/managed-filings/${filingId}/comments`, { body: 'once' }, withKey(key));
    const c2 = await api.post(`/managed-filings/${filingId}/comments`, { body: 'once' }, withKey(key));
    assert.equal(c1.status, 201, c1.text);
    assert.deepEqual(c2.body, c1.body);
    const comments = await t.rt.db.knex('es_events').where({ stream_id: `managedFiling-${filingId}`, type: 'FilingCommentPosted' }).count<{ count: string }[]>('* as count');
    assert.equal(Number(comments[0].count), 1);
    const beginKey = crypto.randomUUID();
    const begin = { scope, name: 'a.txt', mimeType: 'text/plain', size: 3 };
    const u1 = await api.post('/files/uploads', begin, withKey(beginKey));
    const u2 = await api.post('/files/uploads', begin, withKey(beginKey));
    assert.equal(u1.status, 201, u1.text);
    assert.equal(u2.body.uploadToken, u1.body.uploadToken);
    const artifact = (await upload(t.baseUrl, editor.apiKey, scope)).artifact;
    const itemKey = crypto.randomUUID();
    const i1 = await api.post(`/managed-filings/${filingId}/items`, { artifactId: artifact.id }, withKey(itemKey));
    const i2 = await api.post(`/managed-filings/${filingId}/items`, { artifactId: artifact.id }, withKey(itemKey));
    assert.equal(i1.status, 201, i1.text);
    assert.deepEqual(i2.body, i1.body);
    const items = await t.rt.db.knex('es_events').where({ stream_id: `managedFiling-${filingId}`, type: 'ManagedFilingItemAdded' }).count<{ count: string }[]>('* as count');
    assert.equal(Number(items[0].count), 1);
  });

  it('rule: an error answer is not kept: a retry after a refused write runs again', async () => {
    const key = crypto.randomUUID();
    const missing = crypto.randomUUID();
    const api = client(t.baseUrl, editor.apiKey);
    const first = await api.post(`/managed-filings/${missing}/comments`, { body: 'x' }, withKey(key));
    assert.equal(first.status, 404, first.text);
    const second = await api.post(`/managed-filings/${missing}/comments`, { body: 'x' }, withKey(key));
    assert.equal(second.status, 404);
    assert.equal(second.headers.get('idempotent-replayed'), null);
    assert.notEqual(second.body.requestId, first.body.requestId);
  });

  it('rule: upload completion refuses the key (400 idempotency_key_not_supported): the contract makes a replay add a version', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const bytes = Buffer.from('abc');
    const begin = await api.post('/files/uploads', { scope, name: 'b.txt', mimeType: 'text/plain', size: bytes.length });
    await fetch(begin.body.uploadUrl, { method: 'PUT', body: bytes });
    const r = await api.post('/files/uploads/complete', { confirmations: [{ uploadToken: begin.body.uploadToken }] }, withKey(crypto.randomUUID()));
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, 'idempotency_key_not_supported');
    assert.deepEqual(r.body.details[0].path, ['Idempotency-Key']);
    assert.equal(r.body.details[0].location, 'header');
    // Without the header the same completion goes through.
    const ok = await api.post('/files/uploads/complete', { confirmations: [{ uploadToken: begin.body.uploadToken }] });
    assert.equal(ok.status, 200);
    assert.equal(ok.body.results[0].success, true, ok.text);
    assert.ok((await upload(t.baseUrl, editor.apiKey, scope)).artifact.id);
  });

  it('rule: a malformed Idempotency-Key is 400 invalid_request naming the header; reads ignore the header', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const r = await api.post('/managed-filings', filingBody(scope, l), withKey('x'.repeat(256)));
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.code, 'invalid_request');
    assert.deepEqual(r.body.details[0], { location: 'header', path: ['Idempotency-Key'], code: 'invalid_value', message: r.body.details[0].message });
    const search = await api.post('/filings/search', { query: 'cyber' }, withKey('x'.repeat(256)));
    assert.equal(search.status, 200, search.text);
  });

  it('rule: OpenAPI documents the Idempotency-Key header (with 409 and 422) on each POST write, and refusal on completion', async () => {
    const doc = (await client(t.baseUrl).get('/openapi.json')).body;
    const header = (op: any) => (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
    for (const p of ['/managed-filings', '/insurance/managed-filings', '/managed-filings/{filingId}/items', '/managed-filings/{filingId}/comments', '/managed-filings/{filingId}/comments/{commentId}/resolve', '/managed-filings/{filingId}/comments/{commentId}/reopen', '/files/uploads']) {
      const op = doc.paths[p].post;
      assert.ok(header(op), p);
      assert.equal(header(op).required, false, p);
      assert.match(header(op).description, /Stripe/);
      assert.ok(op.responses['422'], p);
      assert.ok(op.responses['409'], p);
    }
    assert.equal(header(doc.paths['/files/uploads/complete'].post), undefined);
    assert.match(doc.paths['/files/uploads/complete'].post.description, /Idempotency-Key is refused/);
    assert.equal(header(doc.paths['/filings/search'].post), undefined);
  });
});
