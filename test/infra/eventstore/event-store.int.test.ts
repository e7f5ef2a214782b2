import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { PostgresEventStore } from '../../../infra/eventstore/postgres-event-store';
import { withUpcasting } from '../../../infra/eventstore/upcasting-event-store';
import { UpcasterRegistry } from '../../../src/domain/upcasting';
import { openDatabase, type Database } from '../../../infra/postgres/database';
import { createLogger } from '../../../src/util/logger';
import { eventStoreContract } from '../../contracts/event-store.contract';
import { freshDatabaseUrl } from '../../support/postgres';

let db: Database | null = null;

async function sharedDb(): Promise<Database> {
  db ??= await openDatabase({ dataDir: '/nonexistent', databaseUrl: await freshDatabaseUrl(), log: createLogger('silent'), poolMax: 40 });
  return db;
}

after(async () => {
  await db?.close();
  db = null;
});

eventStoreContract('PostgresEventStore', async () => {
  const d = await sharedDb();
  const store = new PostgresEventStore(d.knex);
  return {
    store,
    // Two events, each in a transaction that stays open: one stream written slowly, each pair Slow + Conc-shaped.
    slowAppend: async (streamId: string, release: Promise<void>) => {
      await d.knex.transaction(async (trx: Knex.Transaction) => {
        await store.appendWith(trx, streamId, [{ type: 'Slow', data: {} }, { type: 'Conc', data: { slow: true } }], 0, {});
        await release;
      });
    },
    close: async () => store.close(),
  };
});

// The store as the container binds it once upcasters exist: the decorator must keep every rule of the port.
eventStoreContract('PostgresEventStore through upcasters', async () => {
  const d = await sharedDb();
  const inner = new PostgresEventStore(d.knex);
  const store = withUpcasting(inner, new UpcasterRegistry([{ type: 'NotInTheContract', from: 1, up: (data) => data }]));
  assert.notEqual(store, inner);
  return {
    store,
    slowAppend: async (streamId: string, release: Promise<void>) => {
      await d.knex.transaction(async (trx: Knex.Transaction) => {
        await inner.appendWith(trx, streamId, [{ type: 'Slow', data: {} }, { type: 'Conc', data: { slow: true } }], 0, {});
        await release;
      });
    },
    close: async () => store.close(),
  };
});
