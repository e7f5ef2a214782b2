import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureEmbeddedPostgres, type EmbeddedHandle } from '../../infra/postgres/embedded';
import { openDatabase, type Database } from '../../infra/postgres/database';
import { PostgresEventStore } from '../../infra/eventstore/postgres-event-store';
import { createLogger } from '../../src/util/logger';

let handle: EmbeddedHandle | null = null;
let baseUrl: string | null = null;
let dir: string | null = null;

/** TEST_DATABASE_URL uses an external server instead (it must allow CREATE DATABASE). */
export async function startSharedPostgres(): Promise<void> {
  if (baseUrl) return;
  if (process.env.TEST_DATABASE_URL) {
    baseUrl = process.env.TEST_DATABASE_URL;
    return;
  }
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-test-pg-'));
  handle = await ensureEmbeddedPostgres(dir, createLogger('warn'), { throwaway: true });
  baseUrl = handle.connectionString;
}

export async function stopSharedPostgres(): Promise<void> {
  if (handle) await handle.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
  handle = null;
  baseUrl = null;
}

/** A brand-new, empty database on the shared server: tests never see each other's data. */
export async function freshDatabaseUrl(): Promise<string> {
  if (!baseUrl) await startSharedPostgres();
  const name = `t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl! });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(baseUrl!);
  u.pathname = `/${name}`;
  return u.toString();
}

export function sharedPostgresUrl(): string {
  if (!baseUrl) throw new Error('shared postgres not started');
  return baseUrl;
}

/**
 * A Postgres event store on a fresh database for the enclosing `describe`: opened before its tests, closed
 * after them. Read `db` and `store` inside the tests (they are set once the suite starts).
 */
export function eventStoreForSuite(): { readonly db: Database; readonly store: PostgresEventStore } {
  const fixture = {} as { db: Database; store: PostgresEventStore };
  before(async () => {
    fixture.db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await freshDatabaseUrl(), log: createLogger('silent') });
    fixture.store = new PostgresEventStore(fixture.db.knex);
  });
  after(async () => fixture.db?.close());
  return fixture;
}
