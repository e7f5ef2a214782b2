import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HeadBucketCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Knex } from 'knex';
import { loadConfig, type Config } from '../../../src/config';
import type { BlobStore } from '../../../src/ports/blob-store';
import { TOKENS } from '../../../src/ports/tokens';
import { runCli } from '../../support/cli';
import { freshDatabaseUrl } from '../../support/postgres';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { aContentFile, aFiling, aTextFile, importFiling, type ImportedFiling } from '../../support/catalog-filing-mother';

/*
 * Object storage end to end (S3_BUCKET): presigned downloads and uploads on the storage host, completion's
 * check of the uploaded object, and the CLI's files in the bucket. Against a real S3 server only
 * (infra/servers/s3.sh starts Versity S3 Gateway); each runtime gets a bucket of its own, created at start.
 */
const s3 = loadConfig(process.env).s3;
const endpoint = process.env.S3_ENDPOINT;

const freshBucket = (): NonNullable<Config['s3']> => ({ ...s3!, bucket: `${s3!.bucket}-${crypto.randomBytes(5).toString('hex')}` });

async function keysIn(c: S3Client, bucket: string, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await c.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }));
    keys.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return keys;
}

if (!s3 || !endpoint) {
  console.log('S3 transfers (e2e): S3_ENDPOINT / S3_BUCKET not set, no S3 server reachable from this run; these tests did NOT run (start one: eval "$(infra/servers/s3.sh start)")');
} else {
  describe('object storage (S3): presigned transfers on the storage host', function () {
    this.timeout(60_000);
    const storageOrigin = new URL(endpoint).origin;
    const settings = freshBucket();
    const raw = new S3Client({ region: settings.region, endpoint, forcePathStyle: settings.forcePathStyle });
    let t: TestRuntime;
    let editor: TestCaller;
    let scope: string;
    let fl: ImportedFiling;
    const pdfLike = Buffer.concat([Buffer.from('%PDF-1.4 not really\n'), crypto.randomBytes(3000)]);
    const longText = 'rate manual line\n'.repeat(20_000); // over 256 KiB: a large blob

    before(async () => {
      t = await startTestRuntime({ s3: settings });
      editor = await makeCaller(t.rt);
      scope = await makeScope(t.rt, editor.tenantId, [{ userId: editor.userId, role: 'editor' }]);
      fl = await importFiling(t.rt, aFiling(), [
        aContentFile(pdfLike, { name: 'Rate Exhibit – 2024.pdf', mimeType: 'application/pdf', role: 'rate', versionId: 'v-3' }),
        aContentFile(Buffer.from('secret'), { name: 'restricted.txt', restricted: true }),
        aTextFile(['page one of the memo', 'page two'], { name: 'Memo.pdf' }),
        aTextFile([longText], { name: 'Manual.pdf' }),
      ]);
      await t.rt.engine.catchUp();
    });
    after(async () => {
      await t?.close();
      raw.destroy();
    });

    const api = () => client(t.baseUrl, editor.apiKey);
    const stream = async (id: string) => Number((await t.rt.container.get<Knex>(TOKENS.Knex).raw('select count(*) as n from es_events where stream_id = ?', [id])).rows[0].n);
    const grantOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[0], 'base64url').toString('utf8')) as { artifactId: string; uploadId: string };

    it('rule: S3_BUCKET creates the bucket at start when it is missing', async () => {
      await raw.send(new HeadBucketCommand({ Bucket: settings.bucket }));
    });

    it('rule: a download is a 302 to a presigned GET on the storage host that works without the API key (bytes, type, disposition)', async () => {
      const file = fl.files[0];
      const r = await api().get(`/files/${file.fileId}/download`);
      assert.equal(r.status, 302);
      assert.equal(r.headers.get('file-version-id'), 'v-3');
      const location = new URL(r.headers.get('location')!);
      assert.equal(location.origin, storageOrigin);
      assert.equal(location.searchParams.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
      assert.equal(location.searchParams.get('X-Amz-Expires'), '300', 'short-lived');
      const d = await fetch(location, { redirect: 'manual' });
      assert.equal(d.status, 200);
      assert.equal(d.headers.get('content-type'), 'application/pdf');
      assert.equal(d.headers.get('content-disposition'), `attachment; filename="Rate Exhibit _ 2024.pdf"; filename*=UTF-8''Rate%20Exhibit%20%E2%80%93%202024.pdf`);
      assert.ok(Buffer.from(await d.arrayBuffer()).equals(pdfLike));
      const pinned = await api().get(`/files/${file.fileId}/download?versionId=v-3`);
      assert.equal(pinned.status, 302);
      assert.notEqual(pinned.headers.get('location'), r.headers.get('location'), 'a retry gets a fresh address');
      assert.ok(Buffer.from(await (await fetch(pinned.headers.get('location')!)).arrayBuffer()).equals(pdfLike));
    });

    it('rule: an altered presigned address is refused by the storage host; a restricted file stays 403 download_restricted', async () => {
      const location = new URL((await api().get(`/files/${fl.files[0].fileId}/download`)).headers.get('location')!);
      const sig = location.searchParams.get('X-Amz-Signature')!;
      location.searchParams.set('X-Amz-Signature', (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
      assert.equal((await fetch(location)).status, 403);
      const restricted = await api().get(`/files/${fl.files[1].fileId}/download`);
      assert.equal(restricted.status, 403);
      assert.equal(restricted.body.code, 'download_restricted');
    });

    it('rule: with S3 every original is in the bucket whatever its size, texts over 256 KiB too; smaller texts in the shared Postgres; the text route reads both', async () => {
      const keys = await keysIn(raw, settings.bucket, 'blobs/');
      for (const f of fl.files.filter((x) => x.contentSha256)) assert.ok(keys.includes(`blobs/${f.contentSha256}`), `${f.name} (${f.size} bytes)`);
      const [memo, manual] = [fl.files[2], fl.files[3]];
      assert.ok(keys.includes(`blobs/${manual.text!.textSha256}`), 'the large text');
      assert.ok(!keys.includes(`blobs/${memo.text!.textSha256}`), 'a small text is a Postgres row');
      const small = await t.rt.container.get<Knex>(TOKENS.Knex)('blob_small').where({ sha256: memo.text!.textSha256 }).first('size');
      assert.ok(small);
      assert.equal((await api().get(`/files/${memo.fileId}/text`)).body.text, 'page one of the memo\fpage two');
      const chunk = await api().get(`/files/${manual.fileId}/text?maxBytes=1000`);
      assert.equal(chunk.status, 200, chunk.text);
      assert.equal(chunk.body.text, longText.slice(0, 1000));
      assert.ok(await t.rt.container.get<BlobStore>(TOKENS.BlobStore).has(manual.text!.textSha256));
    });

    it('rule: uploadUrl is a presigned PUT on the storage host that works without the API key; completion records the bytes\' SHA-256', async () => {
      const bytes = Buffer.from('Rate manual page one\fpage two');
      const begin = await api().post('/files/uploads', { scope, name: 'manual.txt', mimeType: 'text/plain', size: bytes.length });
      assert.equal(begin.status, 201, begin.text);
      const url = new URL(begin.body.uploadUrl);
      assert.equal(url.origin, storageOrigin);
      const put = await fetch(url, { method: 'PUT', body: bytes });
      assert.equal(put.status, 200, await put.text());
      const done = await api().post('/files/uploads/complete', { confirmations: [{ uploadToken: begin.body.uploadToken }] });
      assert.equal(done.status, 200);
      const [result] = done.body.results;
      assert.equal(result.success, true, JSON.stringify(result));
      const sha = crypto.createHash('sha256').update(bytes).digest('hex');
      assert.equal(result.artifact.contentSha256, sha);
      assert.equal(result.artifact.currentVersion.versionNumber, 1);
      const keys = await keysIn(raw, settings.bucket, '');
      assert.ok(keys.includes(`blobs/${sha}`));
      assert.ok(!keys.includes(`uploads/${grantOf(begin.body.uploadToken).uploadId}`), 'the upload object is moved to its content address');
      // Completion is not idempotent (contract): a replay adds another version of the same bytes.
      const replay = await api().post('/files/uploads/complete', { confirmations: [{ uploadToken: begin.body.uploadToken }] });
      assert.equal(replay.body.results[0].success, true, JSON.stringify(replay.body));
      assert.equal(replay.body.results[0].artifact.currentVersion.versionNumber, 2);
      assert.equal(replay.body.results[0].artifact.contentSha256, sha);
    });

    it('rule: completion checks the object before it appends anything: another size is UPLOAD_SIZE_MISMATCH, nothing PUT is UPLOAD_NOT_FOUND', async () => {
      const begin = await api().post('/files/uploads', { scope, name: 'short.txt', mimeType: 'text/plain', size: 5 });
      assert.equal((await fetch(begin.body.uploadUrl, { method: 'PUT', body: 'seven b' })).status, 200);
      const unput = await api().post('/files/uploads', { scope, name: 'never.txt', mimeType: 'text/plain', size: 5 });
      const done = await api().post('/files/uploads/complete', { confirmations: [{ uploadToken: begin.body.uploadToken }, { uploadToken: unput.body.uploadToken }] });
      assert.equal(done.status, 200);
      assert.deepEqual(
        done.body.results.map((r: { success: boolean; error: { code: string } | null }) => [r.success, r.error?.code]),
        [
          [false, 'UPLOAD_SIZE_MISMATCH'],
          [false, 'UPLOAD_NOT_FOUND'],
        ],
      );
      assert.equal(await stream(`artifact-${grantOf(begin.body.uploadToken).artifactId}`), 0, 'nothing appended for the mismatched upload');
      // The right bytes PUT again to the same address complete it.
      assert.equal((await fetch(begin.body.uploadUrl, { method: 'PUT', body: 'five!' })).status, 200);
      const again = await api().post('/files/uploads/complete', { confirmations: [{ uploadToken: begin.body.uploadToken }] });
      assert.equal(again.body.results[0].success, true, JSON.stringify(again.body));
      assert.equal(again.body.results[0].artifact.contentSha256, crypto.createHash('sha256').update('five!').digest('hex'));
    });

    it('rule: an altered presigned PUT is refused by the storage host', async () => {
      const begin = await api().post('/files/uploads', { scope, name: 'a.txt', mimeType: 'text/plain', size: 5 });
      const url = new URL(begin.body.uploadUrl);
      url.pathname = url.pathname.replace(/uploads\/.*/, `uploads/${crypto.randomUUID()}`);
      assert.equal((await fetch(url, { method: 'PUT', body: 'hello' })).status, 403);
    });
  });

  describe('object storage (S3): the CLI', function () {
    this.timeout(240_000);

    it('rule: with S3_* set, `ifrs demo seed` puts its files in the bucket and none under the data directory', async () => {
      const settings = freshBucket();
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-s3-demo-'));
      const raw = new S3Client({ region: settings.region, endpoint, forcePathStyle: settings.forcePathStyle });
      try {
        const env = { DATABASE_URL: await freshDatabaseUrl(), LOG_LEVEL: 'warn', KAFKA_BROKERS: '', ELASTICSEARCH_URL: '', ESDB_URL: '', S3_BUCKET: settings.bucket };
        const r = await runCli(['demo', 'seed', '--filings', '12', '--data-dir', dataDir], env, 230_000);
        assert.equal(r.code, 0, r.stderr);
        assert.equal(r.json.failed, 0);
        const keys = await keysIn(raw, settings.bucket, 'blobs/');
        assert.ok(keys.length >= 12, `${keys.length} originals in the bucket`);
        assert.ok(!fs.existsSync(path.join(dataDir, 'blobs')), 'no blob directory on the local disk');
        const serve = await runCli(['demo', 'seed', '--filings', '12', '--data-dir', dataDir], env, 230_000);
        assert.equal(serve.code, 0, serve.stderr);
        assert.equal((await keysIn(raw, settings.bucket, 'blobs/')).length, keys.length, 'a second seed stores nothing new');
      } finally {
        raw.destroy();
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    });
  });
}
