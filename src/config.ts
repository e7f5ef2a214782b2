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
  /** Node's maxHeaderSize: the request line and headers, in bytes; beyond it a coded 431. */
  httpMaxHeaderBytes: number;
  /** The request line and headers must arrive within this many milliseconds (coded 408). */
  httpHeadersTimeoutMs: number;
  /** A request body that receives nothing for this many milliseconds is a coded 408 (0: no bound). */
  httpBodyIdleTimeoutMs: number;
  /** The whole request, body included, must arrive within this many milliseconds (coded 408; 0: no bound). */
  httpRequestTimeoutMs: number;
}

/**
 * The contract lets a GET carry 100 values of 500 characters per list filter: 51 KB for one such filter in
 * plain ASCII, ~450 KB when every character is a percent-encoded three-byte one, ~470 KB for all nine text
 * filters of the catalog list at once in ASCII. 1 MiB serves each of these (Node's own 16 KiB refused the
 * first), and is the JSON body limit too, so one request's headers hold no more memory than its body may.
 */
export const DEFAULT_MAX_HEADER_BYTES = 1024 * 1024;

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
    httpMaxHeaderBytes: Number(env.IFRS_MAX_HEADER_BYTES || DEFAULT_MAX_HEADER_BYTES),
    httpHeadersTimeoutMs: Number(env.IFRS_HEADERS_TIMEOUT_MS || 20_000),
    httpBodyIdleTimeoutMs: Number(env.IFRS_BODY_IDLE_TIMEOUT_MS ?? 30_000),
    httpRequestTimeoutMs: Number(env.IFRS_REQUEST_TIMEOUT_MS ?? 300_000),
  };
  return { ...cfg, ...overrides };
}
