import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { FsBlobStore } from '../../infra/blobs/fs-blob-store';
import { SMALL_BLOB_MAX, TieredBlobStore } from '../../infra/blobs/tiered-blob-store';
import { openDatabase, type Database } from '../../infra/postgres/database';
import { createLogger } from '../../src/logger';
import type { BlobStore } from '../../src/ports/blob-store';
import { freshDatabaseUrl } from '../support/postgres';

async function readAll(s: Readable): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of s) parts.push(c as Buffer);
  return Buffer.concat(parts);
}

/** The BlobStore contract, for the filesystem store and the tiered (Postgres + filesystem) store. */
function blobStoreContract(name: string, make: () => Promise<{ store: BlobStore; close(): Promise<void> }>) {
  describe(`BlobStore contract: ${name}`, () => {
    let fx: { store: BlobStore; close(): Promise<void> };
    before(async () => (fx = await make()));
    after(async () => fx.close());

    for (const [label, size] of [['small', 1000], ['large', SMALL_BLOB_MAX + 10]] as const) {
      it(`stores ${label} content under its SHA-256, reads it whole and by byte range`, async () => {
        const content = crypto.randomBytes(size);
        const { sha256, size: n } = await fx.store.put(content);
        assert.equal(sha256, crypto.createHash('sha256').update(content).digest('hex'));
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

    it('many concurrent puts (some identical) all land', async () => {
      const contents = Array.from({ length: 300 }, (_, i) => Buffer.from(`page text ${i % 250} ${'x'.repeat(i)}`));
      const keys = await Promise.all(contents.map((c) => fx.store.put(c)));
      for (let i = 0; i < contents.length; i++) assert.deepEqual(await fx.store.get(keys[i].sha256), contents[i]);
    });

    it('binary content of any bytes, empty content and UTF-8 text put together come back byte for byte', async () => {
      const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
      const contents = [all, Buffer.alloc(0), Buffer.from('Prämie — «tarif» \f 日本', 'utf8'), Buffer.concat([all, Buffer.from(all).reverse()]), Buffer.from([0, 0, 92, 120])];
      const keys = await Promise.all(contents.map((c) => fx.store.put(c)));
      for (let i = 0; i < contents.length; i++) {
        assert.equal(keys[i].size, contents[i].length);
        assert.deepEqual(await fx.store.get(keys[i].sha256), contents[i]);
      }
    });

    it('a missing blob is reported, not invented', async () => {
      const missing = '0'.repeat(64);
      assert.equal(await fx.store.has(missing), false);
      await assert.rejects(fx.store.get(missing));
      await assert.rejects(fx.store.read(missing, 0, 10));
    });
  });
}

blobStoreContract('FsBlobStore', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-blobs-'));
  return { store: new FsBlobStore(dir), close: async () => fs.rmSync(dir, { recursive: true, force: true }) };
});

blobStoreContract('TieredBlobStore', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-blobs-'));
  const db: Database = await openDatabase({ dataDir: dir, databaseUrl: await freshDatabaseUrl(), log: createLogger('silent') });
  return {
    store: new TieredBlobStore(db.knex, new FsBlobStore(dir)),
    close: async () => {
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
