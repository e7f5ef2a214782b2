import knexFactory, { Knex } from 'knex';
import pg from 'pg';
import type { Logger } from '../../src/util/logger';
import { ensureEmbeddedPostgres } from './embedded';
import { migrationSource } from './migrations';
import { isRetired } from './retired-connections';

// int8 (bigint) columns come back as strings by default; positions and counts fit in a double.
pg.types.setTypeParser(20, (v) => Number(v));
// Dates (not timestamps) stay as the YYYY-MM-DD text the API speaks.
pg.types.setTypeParser(1082, (v) => v);

export interface Database {
  /** The pool of everything but the reads requests make: writes, projectors, imports, rebuilds, migrations (no statement timeout). */
  knex: Knex;
  /**
   * The pool the read side answers requests from: every statement runs under the server's `statement_timeout`
   * (`requestStatementTimeoutMs`), so no request's read can hold a backend for longer. The same pool as `knex`
   * when that timeout is 0.
   */
  readKnex: Knex;
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
  /** Backend memory bounds of the pooled connections (defaults: DEFAULT_POOL_BOUNDS). */
  bounds?: Partial<PoolBounds>;
  /** The statement timeout of the request read pool (`readKnex`), in ms; 0 or absent: none, one pool. */
  requestStatementTimeoutMs?: number;
}

/**
 * What keeps one pooled backend's memory bounded: `work_mem` per sort or hash, and recycling. A backend keeps
 * what it grew (prepared plans, caches, the high-water mark of its allocations) until it ends, so a connection
 * is replaced after `maxUses` loans or `maxLifetimeSeconds`, after `idleTimeoutMs` unused, and at once after one
 * of its statements was cancelled because its client went away (statement-cancel.ts) or once it holds
 * the most prepared statements it may (prepared.ts): retired-connections.ts.
 */
export interface PoolBounds {
  workMem: string;
  maxUses: number;
  maxLifetimeSeconds: number;
  idleTimeoutMs: number;
}

export const DEFAULT_POOL_BOUNDS: PoolBounds = { workMem: '16MB', maxUses: 10_000, maxLifetimeSeconds: 1800, idleTimeoutMs: 30_000 };

const WORK_MEM = /^\d+(kB|MB|GB)?$/;

/**
 * TCP keepalive on every connection, first probe after this long idle. A client waiting for an answer
 * that the server sent into a cut network, and whose session the server then ended, has nothing more to
 * send: without a probe it never meets the server's reset and waits for ever (a relay or an indexer host
 * that was cut off stopped for good). A live server's kernel answers the probe; nothing else changes. Node
 * (libuv) probes every second after the first, 10 times: a server gone without a trace is given up after about 20 s.
 */
export const POSTGRES_KEEPALIVE_MS = 10_000;

/** Loans per connection, counted where the pool validates a connection before lending it. */
const loans = new WeakMap<object, number>();

export async function openDatabase(opts: OpenDatabaseOptions): Promise<Database> {
  const embedded = opts.databaseUrl ? null : await ensureEmbeddedPostgres(opts.dataDir, opts.log);
  const connectionString = opts.databaseUrl ?? embedded!.connectionString;
  const bounds = { ...DEFAULT_POOL_BOUNDS, ...opts.bounds };
  if (!WORK_MEM.test(bounds.workMem)) throw new Error(`work_mem ${JSON.stringify(bounds.workMem)}: expected a size such as 16MB`);
  const knex = knexFactory(poolConfig(connectionString, opts, bounds, 0));
  const timeoutMs = opts.requestStatementTimeoutMs ?? 0;
  const readKnex = timeoutMs > 0 ? knexFactory(poolConfig(connectionString, opts, bounds, timeoutMs)) : knex;
  if (opts.migrate !== false) {
    // Several processes may start at once: an advisory lock serialises the migration run.
    await withAdvisoryLock(knex, 7262611, () => knex.migrate.latest({ migrationSource }));
  }
  return {
    knex,
    readKnex,
    connectionString,
    embedded: !!embedded,
    close: async () => {
      if (readKnex !== knex) await readKnex.destroy();
      await knex.destroy();
      if (embedded) await embedded.stop();
    },
  };
}

/**
 * One pool's knex configuration. `statementTimeoutMs` > 0: every statement of the pool's connections is
 * cancelled by the server past it (57014, which the HTTP layer answers as 503); a timeout the server keeps
 * costs the request path nothing, where one kept in node had to know which request each statement served.
 */
function poolConfig(connectionString: string, opts: OpenDatabaseOptions, bounds: PoolBounds, statementTimeoutMs: number): Knex.Config {
  const timeout = statementTimeoutMs > 0 ? `; set statement_timeout = ${Math.floor(statementTimeoutMs)}` : '';
  return {
    client: 'pg',
    connection: { connectionString, application_name: statementTimeoutMs > 0 ? 'ifrs-read' : 'ifrs', keepAlive: true, keepAliveInitialDelayMillis: POSTGRES_KEEPALIVE_MS },
    pool: {
      min: 0,
      max: opts.poolMax ?? 20,
      idleTimeoutMillis: bounds.idleTimeoutMs,
      maxConnectionLifetimeMillis: bounds.maxLifetimeSeconds * 1000,
      // Spread out, so that connections opened together are not all replaced at once.
      maxConnectionLifetimeJitterMillis: Math.min(60_000, bounds.maxLifetimeSeconds * 100),
      afterCreate: (conn: pg.Client, done: (err: Error | null, conn: pg.Client) => void) => {
        // Open transactions hold event subscribers back: none may idle for long. (SET, not startup options,
        // which poolers such as PgBouncer refuse.)
        conn.query(`set idle_in_transaction_session_timeout = '60s'; set work_mem = '${bounds.workMem}'${timeout}`, (err) => done(err ?? null, conn));
      },
      validate: (conn: pg.Client) => {
        const n = (loans.get(conn) ?? 0) + 1;
        loans.set(conn, n);
        return n <= bounds.maxUses && !isRetired(conn);
      },
    } as Knex.PoolConfig,
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
