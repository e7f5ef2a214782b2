import path from 'node:path';

/** 12-factor configuration: every knob is an environment variable with a safe default. */
export interface Config {
  dataDir: string;
  databaseUrl: string | null;
  port: number;
  host: string;
  logLevel: string;
  /** HMAC key for cursors and signed addresses; derived per data directory when unset (see secrets.ts). */
  secret: string | null;
  publicBaseUrl: string | null;
  esdbUrl: string | null;
  kafkaBrokers: string[] | null;
  /** The one topic the Kafka relay writes every event to (key = stream id). */
  kafkaTopic: string;
  elasticsearchUrl: string | null;
  /** The alias the Elasticsearch search index is read and written through (physical indexes are `<alias>-<suffix>`). */
  elasticsearchIndex: string;
  /** Upper bound for the read-your-writes wait of a command, in milliseconds. */
  readYourWritesTimeoutMs: number;
  /** Readiness fails when a projection lags the head by more than this many events. */
  readyMaxLag: number;
  /** Each database statement a request runs is cancelled after this many milliseconds (0: none); a 503 answers it. */
  statementTimeoutMs: number;
  /** Postgres work_mem of the pooled connections (per sort or hash of a statement). */
  dbWorkMem: string;
  /** A pooled connection is replaced after this many loans, */
  dbPoolMaxUses: number;
  /** after this many seconds, */
  dbPoolMaxLifetimeSeconds: number;
  /** or after this many milliseconds unused. */
  dbPoolIdleTimeoutMs: number;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  // An empty variable counts as unset, as for the others below: `PORT=` was port 0 (a random one),
  // `HOST=` every interface and `IFRS_DATA_DIR=` the working directory itself.
  const cfg: Config = {
    dataDir: path.resolve(env.IFRS_DATA_DIR || './.data'),
    databaseUrl: env.DATABASE_URL || null,
    port: Number(env.PORT || 8080),
    host: env.HOST || '127.0.0.1',
    logLevel: env.LOG_LEVEL ?? 'info',
    secret: env.IFRS_SECRET || null,
    publicBaseUrl: env.PUBLIC_BASE_URL || null,
    esdbUrl: env.ESDB_URL || null,
    kafkaBrokers: env.KAFKA_BROKERS ? env.KAFKA_BROKERS.split(',').map((s) => s.trim()).filter(Boolean) : null,
    kafkaTopic: env.KAFKA_TOPIC || 'ifrs.events',
    elasticsearchUrl: env.ELASTICSEARCH_URL || null,
    elasticsearchIndex: env.ELASTICSEARCH_INDEX || 'ifrs-search',
    readYourWritesTimeoutMs: Number(env.IFRS_RYW_TIMEOUT_MS ?? 5000),
    readyMaxLag: Number(env.IFRS_READY_MAX_LAG ?? 10000),
    statementTimeoutMs: Number(env.IFRS_STATEMENT_TIMEOUT_MS || 10_000),
    dbWorkMem: env.IFRS_DB_WORK_MEM || '16MB',
    dbPoolMaxUses: Number(env.IFRS_DB_POOL_MAX_USES || 10_000),
    dbPoolMaxLifetimeSeconds: Number(env.IFRS_DB_POOL_MAX_LIFETIME_S || 1800),
    dbPoolIdleTimeoutMs: Number(env.IFRS_DB_POOL_IDLE_MS || 30_000),
  };
  return { ...cfg, ...overrides };
}
