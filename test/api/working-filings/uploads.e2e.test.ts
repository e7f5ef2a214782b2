import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { upload } from '../../support/working-filings';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { TOKENS } from '../../../src/ports/tokens';
import { UploadTokens } from '../../../commands/artifacts/upload-tokens';
import { alteredEnd } from '../../support/altered-end';

const ARTIFACT_FIELDS = [
  'id', 'name', 'nodeKind', 'isIndexed', 'createdAt', 'updatedAt', 'type', 'data', 'parentId', 'tags', 'metadata', 'orgId', 'path', 'relativePath',
  'extractedTextPath', 'stringFacet1', 'stringFacet2', 'stringFacet3', 'createdBy', 'sessionId', 'storageScopeId', 'immutableContent', 'contentSha256',
  'visibility', 'visibleTo', 'currentVersion',
];
const DATA_FIELDS = ['id', 'name', 'size', 'mimeType', 'path', 'storageInfo', 'pageCount', 'totalPages', 'pageMapPath', 'extractionMethod', 'lastModified', 'contentVersion', 'indexed'];

describe('working filings: uploads and artifacts', () => {
  let t: TestRuntime;
  let editor: TestCaller;
  let viewer: TestCaller;
  let scope: string;
  before(async () => {
    t = await startTestRuntime();
    editor = await makeCaller(t.rt);
    viewer = await makeCaller(t.rt, { tenantId: editor.tenantId });
    scope = await makeScope(t.rt, editor.tenantId, [
      { userId: editor.userId, role: 'editor' },
      { userId: viewer.userId, role: 'viewer' },
    ]);
  });
  after(async () => t.close());

  const begin = (key: string, body: Record<string, unknown>) => client(t.baseUrl, key).post('/files/uploads', body);

  it('rule: POST /files/uploads answers {uploadToken, uploadUrl, expiresAt} valid one hour; the PUT works without the API key', async () => {
    const r = await begin(editor.apiKey, { scope, name: 'a.txt', mimeType: 'text/plain', size: 5 });
    assert.equal(r.status, 201, r.text);
    const ttl = Date.parse(r.body.expiresAt) - Date.now();
    assert.ok(ttl > 3590_000 && ttl <= 3600_000, String(ttl));
    assert.ok(r.body.uploadUrl.startsWith('http'));
    const put = await fetch(r.body.uploadUrl, { method: 'PUT', body: 'hello' });
    assert.equal(put.status, 200);
    // Another first character: writing a fixed one left the address unchanged whenever the signature began with it (1 in 64).
    const altered = await fetch(r.body.uploadUrl.replace(/signature=(.)/, (_: string, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`), { method: 'PUT', body: 'hello' });
    assert.equal(altered.status, 403);
  });

  it('rule: POST /files/uploads needs editor or manager in the scope (viewer 403, unknown scope 404, read-only key 403)', async () => {
    assert.equal((await begin(viewer.apiKey, { scope, name: 'a.txt', mimeType: 'text/plain', size: 1 })).status, 403);
    assert.equal((await begin(editor.apiKey, { scope: `mc:${crypto.randomUUID()}`, name: 'a.txt', mimeType: 'text/plain', size: 1 })).status, 404);
    const ro = await makeCaller(t.rt, { tenantId: editor.tenantId, readOnly: true });
    await t.rt.container.get(IdentityCommands).grant({ scope, userId: ro.userId, role: 'manager' }, { actor: 'test' });
    assert.equal((await begin(ro.apiKey, { scope, name: 'a.txt', mimeType: 'text/plain', size: 1 })).status, 403);
    assert.equal((await begin(editor.apiKey, { scope, name: 'a.txt', mimeType: 'text/plain', size: -1 })).status, 400);
    assert.equal((await begin(editor.apiKey, { scope, name: 'a/b.txt', mimeType: 'text/plain', size: 1 })).status, 400);
    assert.equal((await begin(editor.apiKey, { scope, name: 'a\\b.txt', mimeType: 'text/plain', size: 1 })).status, 400, 'a backslash, as the documented pattern says');
  });

  it('rule: the PUT checks the size: more bytes than declared is 413, fewer is 400', async () => {
    const r = await begin(editor.apiKey, { scope, name: 'a.txt', mimeType: 'text/plain', size: 3 });
    assert.equal((await fetch(r.body.uploadUrl, { method: 'PUT', body: 'toolong' })).status, 413);
    assert.equal((await fetch(r.body.uploadUrl, { method: 'PUT', body: 'ab' })).status, 400);
  });

  it('rule: completion returns the full artifact record (versions from 1, contentSha256); indexing turns isIndexed true', async () => {
    const { artifact } = await upload(t.baseUrl, editor.apiKey, scope, 'Rate manual page one\fpage two', { name: 'manual.txt' });
    for (const k of ARTIFACT_FIELDS) assert.ok(k in artifact, k);
    for (const k of DATA_FIELDS) assert.ok(k in artifact.data, `data.${k}`);
    const sha = crypto.createHash('sha256').update('Rate manual page one\fpage two').digest('hex');
    assert.equal(artifact.contentSha256, sha);
    assert.equal(artifact.nodeKind, 'file');
    assert.equal(artifact.visibility, 'org');
    assert.equal(artifact.storageScopeId, scope.slice(3));
    assert.equal(artifact.isIndexed, false);
    assert.deepEqual(Object.keys(artifact.currentVersion).sort(), ['contentSha256', 'createdAt', 'id', 'versionNumber']);
    assert.equal(artifact.currentVersion.versionNumber, 1);
    assert.equal(artifact.data.size, Buffer.byteLength('Rate manual page one\fpage two'));
    const deadline = Date.now() + 15_000;
    let seen: any;
    do {
      seen = (await client(t.baseUrl, editor.apiKey).get(`/artifacts/${artifact.id}`)).body;
      if (!seen.isIndexed) await new Promise((r) => setTimeout(r, 100));
    } while (!seen.isIndexed && Date.now() < deadline);
    assert.equal(seen.isIndexed, true);
    assert.equal(seen.data.pageCount, 2);
    assert.equal(seen.data.extractionMethod, 'plain_text');
    assert.ok(seen.extractedTextPath);
    const events = await t.rt.store.readStream(`artifact-${artifact.id}`);
    assert.deepEqual(events.map((e) => e.type), ['ArtifactUploadReceived', 'ArtifactCreated', 'ArtifactVersionAdded', 'ArtifactVersionIndexed']);
  });

  it('rule: GET /artifacts/{id} is 404 (never 500) for an id that is not a UUID, also one of 36 hex digits and hyphens', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    for (const id of ['a'.repeat(36), '-'.repeat(36), 'abcdef01-2345-6789-abcd-ef0123456789'.replace(/-/g, 'a'), 'not-a-uuid', crypto.randomUUID()]) {
      const r = await api.get(`/artifacts/${id}`);
      assert.equal(r.status, 404, `${id}: ${r.text}`);
      assert.equal(r.body.code, 'not_found');
    }
  });

  it('rule: a type no extractor reads is still processed: isIndexed true, no extracted text', async () => {
    const { artifact } = await upload(t.baseUrl, editor.apiKey, scope, '\u0000\u0001binary', { name: 'blob.bin', mimeType: 'application/octet-stream' });
    const deadline = Date.now() + 15_000;
    let seen: any;
    do {
      seen = (await client(t.baseUrl, editor.apiKey).get(`/artifacts/${artifact.id}`)).body;
      if (!seen.isIndexed) await new Promise((r) => setTimeout(r, 100));
    } while (!seen.isIndexed && Date.now() < deadline);
    assert.equal(seen.isIndexed, true);
    assert.equal(seen.extractedTextPath, null);
    assert.equal(seen.data.extractionMethod, null);
  });

  it('rule: a replay of a completion creates another version; an upload with artifactId adds a version of that artifact', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const first = await upload(t.baseUrl, editor.apiKey, scope, 'v1');
    const replay = await api.post('/files/uploads/complete', { confirmations: [{ uploadToken: first.token }] });
    assert.equal(replay.body.results[0].success, true);
    assert.equal(replay.body.results[0].artifact.id, first.artifact.id);
    assert.equal(replay.body.results[0].artifact.currentVersion.versionNumber, 2);
    const v3 = await upload(t.baseUrl, editor.apiKey, scope, 'v3 content', { artifactId: first.artifact.id, name: 'renamed.txt' });
    assert.equal(v3.artifact.currentVersion.versionNumber, 3);
    assert.equal(v3.artifact.name, 'renamed.txt');
    assert.notEqual(v3.artifact.contentSha256, first.artifact.contentSha256);
    assert.equal((await begin(editor.apiKey, { scope, name: 'x.txt', mimeType: 'text/plain', size: 1, artifactId: crypto.randomUUID() })).status, 404);
  });

  it('rule: per-file failures inside the 200: invalid token, not uploaded yet, read-only key PERMISSION_DENIED, viewer PERMISSION_DENIED', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const pending = await begin(editor.apiKey, { scope, name: 'late.txt', mimeType: 'text/plain', size: 4 });
    const ok = await upload(t.baseUrl, editor.apiKey, scope, 'fine');
    const r = await api.post('/files/uploads/complete', { confirmations: [{ uploadToken: 'garbage' }, { uploadToken: pending.body.uploadToken }, { uploadToken: ok.token }] });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.results.map((x: any) => [x.success, x.error?.code ?? null]), [
      [false, 'UPLOAD_TOKEN_INVALID'],
      [false, 'UPLOAD_NOT_FOUND'],
      [true, null],
    ]);
    for (const x of r.body.results) assert.equal(typeof x.uri, 'string');
    const tampered = alteredEnd(ok.token, 3);
    assert.equal((await api.post('/files/uploads/complete', { confirmations: [{ uploadToken: tampered }] })).body.results[0].error.code, 'UPLOAD_TOKEN_INVALID');
    const ro = await makeCaller(t.rt, { tenantId: editor.tenantId, readOnly: true });
    const roR = await client(t.baseUrl, ro.apiKey).post('/files/uploads/complete', { confirmations: [{ uploadToken: ok.token }] });
    assert.equal(roR.status, 200);
    assert.equal(roR.body.results[0].error.code, 'PERMISSION_DENIED');
    const vR = await client(t.baseUrl, viewer.apiKey).post('/files/uploads/complete', { confirmations: [{ uploadToken: ok.token }] });
    assert.equal(vR.body.results[0].error.code, 'PERMISSION_DENIED');
  });

  it('rule (DESIGN: an unknown token is a per-file failure, not a 400): an empty or very long token fails only its own confirmation', async () => {
    const ok = await upload(t.baseUrl, editor.apiKey, scope, 'kept');
    const r = await client(t.baseUrl, editor.apiKey).post('/files/uploads/complete', {
      confirmations: [{ uploadToken: '' }, { uploadToken: 'x'.repeat(20000) }, { uploadToken: ok.token }],
    });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.results.map((x: any) => [x.success, x.error?.code ?? null]), [
      [false, 'UPLOAD_TOKEN_INVALID'],
      [false, 'UPLOAD_TOKEN_INVALID'],
      [true, null],
    ]);
  });

  it('rule (DESIGN: nullable fields are present as null): a success carries error null, a failure artifact null', async () => {
    const ok = await upload(t.baseUrl, editor.apiKey, scope, 'nulls');
    const r = await client(t.baseUrl, editor.apiKey).post('/files/uploads/complete', { confirmations: [{ uploadToken: 'garbage' }, { uploadToken: ok.token }] });
    const [failure, success] = r.body.results;
    assert.ok('artifact' in failure && failure.artifact === null);
    assert.equal(failure.error.code, 'UPLOAD_TOKEN_INVALID');
    assert.ok('error' in success && success.error === null);
    assert.equal(typeof success.artifact.id, 'string');
  });

  it('rule: an expired upload token (one hour) is a per-file UPLOAD_TOKEN_EXPIRED', async () => {
    const tokens = new UploadTokens(t.rt.container.get<Buffer>(TOKENS.Secret));
    const expired = tokens.issue({
      uploadId: crypto.randomUUID(),
      artifactId: crypto.randomUUID(),
      existing: false,
      scopeId: scope.slice(3),
      tenantId: editor.tenantId,
      userId: editor.userId,
      name: 'old.txt',
      mimeType: 'text/plain',
      size: 1,
      exp: Math.floor(Date.now() / 1000) - 1,
    });
    const r = await client(t.baseUrl, editor.apiKey).post('/files/uploads/complete', { confirmations: [{ uploadToken: expired }] });
    assert.equal(r.status, 200);
    assert.equal(r.body.results[0].success, false);
    assert.equal(r.body.results[0].error.code, 'UPLOAD_TOKEN_EXPIRED');
  });

  it('rule: 1 to 100 confirmations; body limit 1 MiB (413)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    assert.equal((await api.post('/files/uploads/complete', { confirmations: [] })).status, 400);
    assert.equal((await api.post('/files/uploads/complete', { confirmations: Array.from({ length: 101 }, () => ({ uploadToken: 'x' })) })).status, 400);
    const many = await api.post('/files/uploads/complete', { confirmations: Array.from({ length: 100 }, () => ({ uploadToken: 'x' })) });
    assert.equal(many.status, 200);
    assert.equal(many.body.results.length, 100);
    const big = await api.post('/files/uploads/complete', { confirmations: [{ uploadToken: 'x'.repeat(1024 * 1024 + 10) }] });
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'request_too_large');
  });
});
