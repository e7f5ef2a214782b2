import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { Readable } from 'node:stream';
import { SMALL_BLOB_MAX } from '../../infra/blobs/tiered-blob-store';
import type { BlobStore } from '../../src/ports/blob-store';

export interface BlobStoreFixture {
  store: BlobStore;
  close(): Promise<void>;
}

export async function readAll(s: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

const sha = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

/** One suite, run for every BlobStore adapter (filesystem, tiered Postgres + filesystem, and S3 where S3_* is set). */
export function blobStoreContract(name: string, make: () => Promise<BlobStoreFixture>): void {
  describe(`BlobStore contract: ${name}`, function () {
    this.timeout(60_000);
    let fx: BlobStoreFixture;
    before(async () => (fx = await make()));
    after(async () => fx?.close());

    for (const [label, size] of [['small', 1000], ['large', SMALL_BLOB_MAX + 10]] as const) {
      it(`rule: ${label} content is stored under its SHA-256 and read whole, by range and by slice`, async () => {
        const content = crypto.randomBytes(size);
        const { sha256, size: n } = await fx.store.put(content);
        assert.equal(sha256, sha(content));
        assert.equal(n, size);
        assert.ok(await fx.store.has(sha256));
        assert.equal(await fx.store.size(sha256), size);
        assert.deepEqual(await fx.store.get(sha256), content);
        assert.deepEqual(await readAll(fx.store.stream(sha256, { start: 10, end: 99 })), content.subarray(10, 100));
        assert.deepEqual(await readAll(fx.store.stream(sha256)), content);
        assert.deepEqual(await fx.store.read(sha256, 10, 90), content.subarray(10, 100));
        assert.deepEqual(await fx.store.read(sha256, size - 5, 100), content.subarray(size - 5), 'short at the end');
        assert.equal((await fx.store.read(sha256, size + 5, 10)).length, 0);
      });
    }

    it('rule: storing the same bytes twice is a no-op that returns the same key', async () => {
      const content = crypto.randomBytes(2000);
      const a = await fx.store.put(content);
      const b = await fx.store.put(Buffer.from(content));
      assert.deepEqual(a, b);
      assert.deepEqual(await fx.store.get(a.sha256), content);
    });

    it('rule: many concurrent puts (some identical) all land', async () => {
      const contents = Array.from({ length: 300 }, (_, i) => Buffer.from(`page text ${i % 250} ${'x'.repeat(i)}`));
      const keys = await Promise.all(contents.map((c) => fx.store.put(c)));
      for (let i = 0; i < contents.length; i++) assert.deepEqual(await fx.store.get(keys[i].sha256), contents[i]);
    });

    it('rule: binary content of any bytes, empty content and UTF-8 text come back byte for byte', async () => {
      const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const contents = [all, Buffer.alloc(0), Buffer.from('Prämie — «tarif» \f 日本', 'utf8'), Buffer.concat([all, Buffer.from(all).reverse()]), Buffer.from([0, 0, 92, 120])];
      const keys = await Promise.all(contents.map((c) => fx.store.put(c)));
      for (let i = 0; i < contents.length; i++) {
        assert.equal(keys[i].size, contents[i].length);
        assert.deepEqual(await fx.store.get(keys[i].sha256), contents[i]);
      }
    });

    it('rule: a streamed put computes the key while writing, in many chunks, and is read back whole', async () => {
      // Over 5 MiB: the S3 adapter's multipart path, not only its single PUT.
      const parts = Array.from({ length: 7 }, () => crypto.randomBytes(1024 * 1024 + 17));
      const whole = Buffer.concat(parts);
      const stored = await fx.store.putStream(Readable.from(parts));
      assert.deepEqual(stored, { sha256: sha(whole), size: whole.length });
      assert.equal(await fx.store.size(stored.sha256), whole.length);
      assert.deepEqual(await fx.store.read(stored.sha256, whole.length - 100, 1000), whole.subarray(whole.length - 100));
      assert.ok((await readAll(fx.store.stream(stored.sha256))).equals(whole));
    });

    it('rule: a streamed put of a small body and of an empty one is stored under its key', async () => {
      for (const body of [Buffer.from('a small upload'), Buffer.alloc(0)]) {
        const stored = await fx.store.putStream(Readable.from([body]));
        assert.deepEqual(stored, { sha256: sha(body), size: body.length });
        assert.deepEqual(await fx.store.get(stored.sha256), body);
      }
    });

    it('rule: a streamed put whose source fails stores nothing and rejects', async () => {
      const source = new Readable({ read() {} });
      const put = fx.store.putStream(source);
      source.push(Buffer.from('partial '));
      setImmediate(() => source.destroy(new Error('client went away')));
      await assert.rejects(put);
      assert.equal(await fx.store.has(sha(Buffer.from('partial '))), false);
    });

    it('rule: a missing blob is reported, not invented', async () => {
      const missing = '0'.repeat(64);
      assert.equal(await fx.store.has(missing), false);
      await assert.rejects(fx.store.get(missing));
      await assert.rejects(fx.store.read(missing, 0, 10));
      await assert.rejects(fx.store.size(missing));
      await assert.rejects(readAll(fx.store.stream(missing)));
    });
  });
}
