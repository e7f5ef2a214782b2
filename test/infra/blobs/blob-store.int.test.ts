import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { FsBlobStore } from '../../../infra/blobs/fs-blob-store';
import { S3BlobStore } from '../../../infra/blobs/s3-blob-store';
import { TieredBlobStore } from '../../../infra/blobs/tiered-blob-store';
import { openDatabase, type Database } from '../../../infra/postgres/database';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/util/logger';
import { blobStoreContract } from '../../contracts/blob-store.contract';
import { freshDatabaseUrl } from '../../support/postgres';

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

const s3 = loadConfig(process.env).s3;
if (s3 && process.env.S3_ENDPOINT) {
  blobStoreContract(`S3BlobStore (${process.env.S3_ENDPOINT})`, async () => {
    const store = new S3BlobStore(s3);
    await store.ensureReady();
    return { store, close: () => store.close() };
  });

  // As S3_BUCKET wires it (src/container.ts): small blobs in Postgres, large ones in the bucket.
  blobStoreContract('TieredBlobStore over S3', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-blobs-'));
    const db: Database = await openDatabase({ dataDir: dir, databaseUrl: await freshDatabaseUrl(), log: createLogger('silent') });
    const bucket = new S3BlobStore(s3);
    await bucket.ensureReady();
    return {
      store: new TieredBlobStore(db.knex, bucket),
      close: async () => {
        await bucket.close();
        await db.close();
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
  });
} else {
  console.log('BlobStore contract: S3BlobStore — S3_ENDPOINT / S3_BUCKET not set, no S3 server reachable from this run; its contract suite did NOT run (start one: eval "$(infra/servers/s3.sh start)")');
}
