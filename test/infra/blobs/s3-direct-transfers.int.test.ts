import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { S3BlobStore } from '../../../infra/blobs/s3-blob-store';
import { loadConfig } from '../../../src/config';

/* The S3 adapter's presigned transfers against a real S3 server (infra/servers/s3.sh), never a mock. */
const s3 = loadConfig(process.env).s3;
if (!s3 || !process.env.S3_ENDPOINT) {
  console.log('S3 direct transfers: S3_ENDPOINT / S3_BUCKET not set, no S3 server reachable from this run; these tests did NOT run (start one: eval "$(infra/servers/s3.sh start)")');
} else {
  describe('S3BlobStore: presigned transfers (DirectTransfers)', function () {
    this.timeout(30_000);
    let store: S3BlobStore;
    before(async () => {
      store = new S3BlobStore(s3);
      await store.ensureReady();
    });
    after(async () => store.close());
    const sha = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');

    it('rule: ensureReady is harmless when the bucket exists (a second process starting)', async () => {
      await store.ensureReady();
      const other = new S3BlobStore(s3);
      await other.ensureReady();
      await other.close();
    });

    it('rule: a presigned GET serves the blob with the given Content-Type and Content-Disposition, on the configured host', async () => {
      const content = crypto.randomBytes(5000);
      const { sha256 } = await store.put(content);
      const url = await store.downloadUrl(sha256, { contentType: 'application/pdf', contentDisposition: `attachment; filename="a b.pdf"; filename*=UTF-8''a%20b%E2%80%93.pdf` }, 60);
      assert.equal(new URL(url).origin, new URL(process.env.S3_ENDPOINT!).origin);
      const r = await fetch(url);
      assert.equal(r.status, 200);
      assert.equal(r.headers.get('content-type'), 'application/pdf');
      assert.equal(r.headers.get('content-disposition'), `attachment; filename="a b.pdf"; filename*=UTF-8''a%20b%E2%80%93.pdf`);
      assert.ok(Buffer.from(await r.arrayBuffer()).equals(content));
    });

    it('rule: a presigned address is short-lived: refused once expired', async () => {
      const { sha256 } = await store.put(Buffer.from('expiring'));
      const url = await store.downloadUrl(sha256, { contentType: 'text/plain', contentDisposition: 'attachment' }, 1);
      await new Promise((r) => setTimeout(r, 2200));
      assert.equal((await fetch(url)).status, 403);
    });

    it('rule: an upload is claimed by reading it back: its SHA-256 and size, stored under the content address; nothing PUT is null', async () => {
      const id = crypto.randomUUID();
      assert.equal(await store.uploadSize(id), null);
      assert.equal(await store.claimUpload(id), null);
      const put = await fetch(await store.uploadUrl(id, 60), { method: 'PUT', body: 'uploaded bytes' });
      assert.equal(put.status, 200);
      assert.equal(await store.uploadSize(id), 14);
      assert.deepEqual(await store.claimUpload(id), { sha256: sha('uploaded bytes'), size: 14 });
      assert.equal((await store.get(sha('uploaded bytes'))).toString(), 'uploaded bytes');
      await store.discardUpload(id);
      assert.equal(await store.uploadSize(id), null);
    });

    it('rule: a presigned PUT is for its own upload only: the same signature on another key is refused', async () => {
      const url = new URL(await store.uploadUrl(crypto.randomUUID(), 60));
      url.pathname = url.pathname.replace(/[^/]+$/, crypto.randomUUID());
      assert.equal((await fetch(url, { method: 'PUT', body: 'x' })).status, 403);
    });
  });
}
