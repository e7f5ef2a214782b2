import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../../src/logger';
import { ensureEmbeddedPostgres } from './embedded';
import { migrationSource } from './migrations';

// int8 (bigint) columns come back as strings by default; positions and counts fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
// Dates (not timestamps) stay as the YYYY-MM-DD text the API speaks.
pg.types.setTypeParser(1082, (v) => v);

export interface Database {
  knex: Knex;
  connectionString: string;
  embedded: boolean;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  dataDir: string;
  databaseUrl: string | null;
  log: Logger;
  poolMax?: number;
  migrate?: boolean;
}

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const embedded = opts.databaseUrl ? null : await ensureEmbeddedPostgres(opts.dataDir, opts.log);
  const connectionString = opts.databaseUrl ?? embedded!.connectionString;
  const knex = knexFactory({
    client: 'pg',
    connection: { connectionString, application_name: 'ifrs' },
    pool: {
      min: 0,
      max: opts.poolMax ?? 20,
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        // Open transactions hold event subscribers back: none may idle for long.
        conn.query(`set idle_in_transaction_session_timeout = '60s'`, (err) => done(err ?? null, conn));
      },
    },
    acquireConnectionTimeout: 10_000,
    // knex writes its own warnings with console.log, i.e. on stdout, which the CLI keeps for its one JSON
    // result (OPERATIONS.md); a failed connection also comes back as the error the caller reports, so its
    // multi-line stack is only worth a debug line.
    log: {
      warn: (m: unknown) => (String(m).startsWith('Acquire connection error') ? opts.log.debug({ knex: String(m) }, 'knex') : opts.log.warn({ knex: m }, 'knex')),
      error: (m: unknown) => opts.log.error({ knex: m }, 'knex'),
      deprecate: (m: unknown) => opts.log.warn({ knex: m }, 'knex deprecation'),
      debug: (m: unknown) => opts.log.debug({ knex: m }, 'knex'),
    },
  });
  if (opts.migrate !== false) {
    // Several processes may start at once: an advisory lock serialises the migration run.
    await withAdvisoryLock(knex, 7262611, () => knex.migrate.latest({ migrationSource }));
  }
  return {
    knex,
    connectionString,
    embedded: !!embedded,
    close: async () => {
      await knex.destroy();
      if (embedded) await embedded.stop();
    },
  };
}

/** Runs fn while holding a session-level advisory lock on one pooled connection. */
export async function withAdvisoryLock<T>(knex: Knex, key: number, fn: () => Promise<T>): Promise<T> {
  const conn = await knex.client.acquireConnection();
  try {
    await conn.query('select pg_advisory_lock($1)', [key]);
    try {
      return await fn();
    } finally {
      await conn.query('select pg_advisory_unlock($1)', [key]);
    }
  } finally {
    await knex.client.releaseConnection(conn);
  }
}
