import assert from 'node:assert/strict';
import { PostgresEventStore } from '../../../infra/eventstore/postgres-event-store';
import { openDatabase, type Database } from '../../../infra/postgres/database';
import { createLogger } from '../../../src/util/logger';
import { freshDatabaseUrl } from '../../support/postgres';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('PostgresEventStore append watcher (onAppended)', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await freshDatabaseUrl(), log: createLogger('silent'), poolMax: 2 });
  });
  after(async () => db?.close());

  it('rule: the watcher has at most one probe waiting for a connection, however long the pool stays busy, and wakes subscribers afterwards', async () => {
    const store = new PostgresEventStore(db.knex, 10);
    const pool = (db.knex.client as { pool: { numPendingAcquires(): number } }).pool;
    let woken = 0;
    const unsubscribe = await store.onAppended(() => woken++);
    // Every connection of the pool taken for 30 poll intervals: probes on a fixed interval queued ~30 acquires.
    const held = [await db.knex.client.acquireConnection(), await db.knex.client.acquireConnection()];
    try {
      await sleep(300);
      assert.ok(pool.numPendingAcquires() <= 1, `pending acquires while the pool was busy: ${pool.numPendingAcquires()}`);
    } finally {
      for (const c of held) await db.knex.client.releaseConnection(c);
    }
    try {
      await store.append(`watch-${Date.now()}`, [{ type: 'Watched', data: {} }], 0, {});
      for (const until = Date.now() + 2000; woken === 0 && Date.now() < until; ) await sleep(10);
      assert.ok(woken > 0, 'a subscriber was woken after the pool was free again');
    } finally {
      await unsubscribe();
      await store.close();
    }
  });

  it('rule: a watcher stopped and restarted while its probe waits for a connection leaves one probe loop running', async () => {
    const store = new PostgresEventStore(db.knex, 20);
    const client = db.knex.client as { acquireConnection(): Promise<unknown>; releaseConnection(c: unknown): Promise<void> };
    const first = await store.onAppended(() => undefined);
    // The first loop's next probe waits for a connection while it is stopped and a second one starts.
    const held = [await client.acquireConnection(), await client.acquireConnection()];
    await sleep(40);
    await first();
    const second = store.onAppended(() => undefined);
    for (const c of held) await client.releaseConnection(c);
    const unsubscribe = await second;
    // Count the probes of the next 400 ms: one loop at 20 ms makes ~20 (less under load), two would make ~40.
    const acquire = client.acquireConnection.bind(client);
    let probes = 0;
    client.acquireConnection = () => (probes++, acquire());
    try {
      await sleep(400);
    } finally {
      client.acquireConnection = acquire;
      await unsubscribe();
      await store.close();
    }
    assert.ok(probes > 0 && probes <= 26, `probes in 400 ms: ${probes}`);
  });
});
