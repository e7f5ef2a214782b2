import path from 'node:path';
import { z } from 'zod';
import { DEFAULT_REQUEST_LIMITS, type RequestLimitsConfig } from './http/request-limits';
import { parseCorsOrigins } from './http/cors';

/**
 * One configuration setting: the environment variable (12-factor; every knob has a safe default), the CLI
 * flag that overrides it, if any, and the zod schema that turns the text into a value. `expected` is what
 * the one-line error says a valid value looks like.
 */
export interface Setting<T> {
  env: string;
  flag?: string;
  expected: string;
  /** Takes the text (undefined when unset or empty) and gives the value, with the default applied. */
  schema: z.ZodType<T, string | null | undefined>;
  /** Never echoed in an error (credentials). */
  secret?: boolean;
}

const setting = <T>(s: Setting<T>): Setting<T> => s;

const integer = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d+$/)
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

const urlWith = (protocols: string[]) =>
  z.string().refine((s) => {
    try {
      return protocols.includes(new URL(s).protocol);
    } catch {
      return false;
    }
  });

const HOSTNAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
const host = z.union([z.ipv4(), z.ipv6(), z.string().regex(HOSTNAME)]);
const onOff = z.enum(['0', '1']);
const nonNegativeNumber = z.string().regex(/^\d+(\.\d+)?$/).transform(Number);

/**
 * The contract lets a GET carry 100 values of 500 characters per list filter: 51 KB for one such filter in
 * plain ASCII, ~450 KB when every character is a percent-encoded three-byte one, ~470 KB for all nine text
 * filters of the catalog list at once in ASCII. 1 MiB serves each of these (Node's own 16 KiB refused the
 * first), and is the JSON body limit too, so one request's headers hold no more memory than its body may.
 */
export const DEFAULT_MAX_HEADER_BYTES = 1024 * 1024;

/**
 * Every environment variable and flag the service reads, one entry each, validated before anything starts
 * (`loadConfig`). To add one: an entry here; its value type joins `Config` by itself.
 */
export const SETTINGS = {
  dataDir: setting({ env: 'IFRS_DATA_DIR', flag: '--data-dir', expected: 'a directory path', schema: z.string().default('./.data').transform((p) => path.resolve(p)) }),
  databaseUrl: setting({
    env: 'DATABASE_URL',
    expected: 'a postgres:// or postgresql:// URL',
    secret: true,
    schema: urlWith(['postgres:', 'postgresql:', 'socket:']).nullable().default(null),
  }),
  port: setting({ env: 'PORT', flag: '--port', expected: 'an integer 0-65535 (0: any free port)', schema: integer(0, 65535).default(8080) }),
  host: setting({ env: 'HOST', flag: '--host', expected: 'an IP address or a host name', schema: host.default('127.0.0.1') }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    expected: 'one of fatal, error, warn, info, debug, trace, silent',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  }),
  /** HMAC key for cursors and signed addresses; derived per data directory when unset (see secrets.ts). */
  secret: setting({ env: 'IFRS_SECRET', expected: 'at least 16 characters', secret: true, schema: z.string().min(16).nullable().default(null) }),
  publicBaseUrl: setting({ env: 'PUBLIC_BASE_URL', expected: 'an http:// or https:// URL', schema: urlWith(['http:', 'https:']).nullable().default(null) }),
  esdbUrl: setting({ env: 'ESDB_URL', expected: 'an esdb:// or esdb+discover:// URL', schema: urlWith(['esdb:', 'esdb+discover:']).nullable().default(null) }),
  kafkaBrokers: setting({
    env: 'KAFKA_BROKERS',
    expected: 'a comma-separated list of host:port',
    schema: z
      .string()
      .transform((s) => s.split(',').map((b) => b.trim()).filter(Boolean))
      .pipe(z.array(z.string().regex(/^[^\s:,]+:\d{1,5}$/)).min(1))
      .nullable()
      .default(null),
  }),
  /** The one topic the Kafka relay writes every event to (key = stream id). */
  kafkaTopic: setting({ env: 'KAFKA_TOPIC', expected: 'a Kafka topic name (letters, digits, ".", "_", "-"; at most 249)', schema: z.string().regex(/^[A-Za-z0-9._-]{1,249}$/).default('ifrs.events') }),
  elasticsearchUrl: setting({ env: 'ELASTICSEARCH_URL', expected: 'an http:// or https:// URL', schema: urlWith(['http:', 'https:']).nullable().default(null) }),
  /** The alias the Elasticsearch search index is read and written through (physical indexes are `<alias>-<suffix>`). */
  elasticsearchIndex: setting({
    env: 'ELASTICSEARCH_INDEX',
    expected: 'an Elasticsearch index name (lowercase letters, digits, "_", "-", "."; not starting with "_", "-" or "+")',
    schema: z.string().regex(/^[a-z0-9][a-z0-9._-]{0,199}$/).default('ifrs-search'),
  }),
  /** Upper bound for the read-your-writes wait of a command, in milliseconds. */
  readYourWritesTimeoutMs: setting({ env: 'IFRS_RYW_TIMEOUT_MS', expected: 'an integer 0-600000 (milliseconds)', schema: integer(0, 600_000).default(5000) }),
  /**
   * How long an Idempotency-Key claim holds before another API host may take it over (its holder presumed dead).
   * Unset: twice the read-your-writes timeout plus 5 s (a request's longest run), 15 s at the least.
   */
  idempotencyLeaseMs: setting({
    env: 'IFRS_IDEMPOTENCY_LEASE_MS',
    expected: 'an integer 100-86400000 (milliseconds)',
    schema: integer(100, 86_400_000).nullable().default(null),
  }),
  /** Readiness fails when a projection lags the head by more than this many events. */
  readyMaxLag: setting({ env: 'IFRS_READY_MAX_LAG', expected: 'a non-negative integer (events)', schema: integer(0, Number.MAX_SAFE_INTEGER).default(10000) }),
  /** Read by src/util/heap-growth.ts; 0 leaves V8's own choice. */
  heapGrowthPercent: setting({ env: 'IFRS_HEAP_GROWTH_PERCENT', expected: 'an integer 0-1000 (percent; 0: V8 decides)', schema: integer(0, 1000).default(100) }),
  /** Read by src/util/serial-scavenge.ts. */
  parallelScavenge: setting({ env: 'IFRS_PARALLEL_SCAVENGE', expected: '0 or 1', schema: onOff.default('0').transform((v) => v === '1') }),
  /** Read by src/util/bulk-node-flags.ts (bin/ifrs.js, before this module loads). */
  bulkNodeFlags: setting({ env: 'IFRS_BULK_NODE_FLAGS', expected: '0 or 1', schema: onOff.default('1').transform((v) => v === '1') }),
  /** Read by bin/ifrs.js: run the compiled build (dist) or the TypeScript sources (src); unset: dist when current. */
  runFrom: setting({ env: 'IFRS_RUN', expected: 'dist or src', schema: z.enum(['dist', 'src']).nullable().default(null) }),
  /** Catalog filings `serve --demo` seeds (src/cli/demo/demo-seed.ts). */
  demoFilings: setting({ env: 'IFRS_DEMO_FILINGS', expected: 'a non-negative integer', schema: integer(0, 10_000_000).nullable().default(null) }),
  /** Node's maxHeaderSize: the request line and headers, in bytes; beyond it a coded 431. */
  httpMaxHeaderBytes: setting({ env: 'IFRS_MAX_HEADER_BYTES', expected: 'an integer 1024-16777216 (bytes)', schema: integer(1024, 16 * 1024 * 1024).default(DEFAULT_MAX_HEADER_BYTES) }),
  /** The request line and headers must arrive within this many milliseconds (coded 408). */
  httpHeadersTimeoutMs: setting({ env: 'IFRS_HEADERS_TIMEOUT_MS', expected: 'an integer 1-3600000 (milliseconds)', schema: integer(1, 3_600_000).default(20_000) }),
  /** A request body that receives nothing for this many milliseconds is a coded 408 (0: no bound). */
  httpBodyIdleTimeoutMs: setting({ env: 'IFRS_BODY_IDLE_TIMEOUT_MS', expected: 'an integer 0-3600000 (milliseconds; 0: no bound)', schema: integer(0, 3_600_000).default(30_000) }),
  /** The whole request, body included, must arrive within this many milliseconds (coded 408; 0: no bound). */
  httpRequestTimeoutMs: setting({ env: 'IFRS_REQUEST_TIMEOUT_MS', expected: 'an integer 0-86400000 (milliseconds; 0: no bound)', schema: integer(0, 86_400_000).default(300_000) }),
  /** Per-key token bucket: sustained requests per second (0: off); see src/http/request-limits.ts for the defaults. */
  rateLimitRps: setting({ env: 'IFRS_RATE_LIMIT_RPS', expected: 'a number of at least 0 (0 turns the limit off)', schema: nonNegativeNumber.nullable().default(null) }),
  /** The bucket's size; unset: one second of IFRS_RATE_LIMIT_RPS (or the default burst). */
  rateLimitBurst: setting({ env: 'IFRS_RATE_LIMIT_BURST', expected: 'a number of at least 0', schema: nonNegativeNumber.nullable().default(null) }),
  /** Per-key searches in flight at once (0: no cap). */
  searchConcurrency: setting({ env: 'IFRS_SEARCH_CONCURRENCY', expected: 'an integer of at least 0 (0: no cap)', schema: integer(0, 1_000_000).default(DEFAULT_REQUEST_LIMITS.concurrency.search) }),
  /** Per-key extracted-text reads in flight at once (0: no cap). */
  textConcurrency: setting({ env: 'IFRS_TEXT_CONCURRENCY', expected: 'an integer of at least 0 (0: no cap)', schema: integer(0, 1_000_000).default(DEFAULT_REQUEST_LIMITS.concurrency.text) }),
  /** Setting it selects the S3 blob store (infra/blobs/s3-blob-store.ts); credentials come from the AWS SDK's default chain. */
  s3Bucket: setting({ env: 'S3_BUCKET', expected: 'an S3 bucket name (3-63 lowercase letters, digits, ".", "-")', schema: z.string().regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/).nullable().default(null) }),
  s3Endpoint: setting({ env: 'S3_ENDPOINT', expected: 'an http:// or https:// URL', schema: urlWith(['http:', 'https:']).nullable().default(null) }),
  s3Region: setting({ env: 'S3_REGION', expected: 'an AWS region name such as us-east-1', schema: z.string().regex(/^[a-z0-9-]{1,64}$/).default('us-east-1') }),
  /** Each database statement a request runs is cancelled after this many milliseconds (0: no timeout and no cancel on disconnect); a 503 answers it. */
  statementTimeoutMs: setting({ env: 'IFRS_STATEMENT_TIMEOUT_MS', expected: 'an integer 0-3600000 (milliseconds; 0: off)', schema: integer(0, 3_600_000).default(10_000) }),
  /** Postgres work_mem of the pooled connections (per sort or hash of a statement). */
  dbWorkMem: setting({ env: 'IFRS_DB_WORK_MEM', expected: 'a Postgres memory size such as 16MB (kB, MB or GB)', schema: z.string().regex(/^\d{1,9}(kB|MB|GB)$/).default('16MB') }),
  /** A pooled connection is replaced after this many loans, */
  dbPoolMaxUses: setting({ env: 'IFRS_DB_POOL_MAX_USES', expected: 'an integer 1-100000000', schema: integer(1, 100_000_000).default(10_000) }),
  /** after this many seconds, */
  dbPoolMaxLifetimeSeconds: setting({ env: 'IFRS_DB_POOL_MAX_LIFETIME_S', expected: 'an integer 1-604800 (seconds)', schema: integer(1, 604_800).default(1800) }),
  /** or after this many milliseconds unused. */
  dbPoolIdleTimeoutMs: setting({ env: 'IFRS_DB_POOL_IDLE_MS', expected: 'an integer 1-86400000 (milliseconds)', schema: integer(1, 86_400_000).default(30_000) }),
  /** Browser origins allowed by CORS (src/http/cors.ts); empty: CORS off. */
  corsOrigins: setting({
    env: 'IFRS_CORS_ORIGINS',
    expected: 'comma-separated origins, each exactly scheme://host[:port] (http or https)',
    schema: z
      .string()
      .nullable()
      .default(null)
      .transform((v, ctx) => {
        try {
          return parseCorsOrigins(v ?? undefined);
        } catch {
          ctx.addIssue({ code: 'custom', message: 'not an origin list' });
          return z.NEVER;
        }
      }),
  }),
  s3ForcePathStyle: setting({ env: 'S3_FORCE_PATH_STYLE', expected: 'true or false', schema: z.enum(['true', 'false']).default('false').transform((v) => v === 'true') }),
};

type Settings = typeof SETTINGS;
export type Config = { [K in keyof Settings]: Settings[K] extends Setting<infer T> ? T : never } & {
  /** Per-key rate (token bucket) and concurrency caps of the API, from the four settings above. */
  requestLimits: RequestLimitsConfig;
  /**
   * S3_BUCKET → every original and large blob in that bucket, downloads and uploads through presigned addresses on
   * the storage host; null: the filesystem blob store.
   */
  s3: { bucket: string; endpoint: string | null; region: string; forcePathStyle: boolean } | null;
};

/** Values given on the command line, by setting; they win over the environment. */
export type ConfigFlags = Partial<Record<keyof Settings, string | undefined>>;

/** A bad setting, as the one line the CLI prints (`invalid PORT "abc": expected an integer 0-65535`). */
export class ConfigError extends Error {
  constructor(
    /** The environment variable or flag that holds the bad value. */
    readonly source: string,
    message: string,
  ) {
    super(message);
  }
}

function display(raw: string): string {
  const shown = raw.length > 60 ? `${raw.slice(0, 57)}...` : raw;
  return JSON.stringify(shown);
}

/**
 * The configuration from the environment and the flags, checked entry by entry; the first bad value throws
 * a ConfigError naming it. An empty variable counts as unset (`PORT=` was port 0, `HOST=` every interface,
 * `IFRS_DATA_DIR=` the working directory); an empty flag is a bad value. `overrides` are typed values
 * (tests, embedding) applied last.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}, flags: ConfigFlags = {}): Config {
  const config: Record<string, unknown> = {};
  for (const [name, s] of Object.entries(SETTINGS) as [keyof Settings, Setting<unknown>][]) {
    const fromFlag = s.flag !== undefined && flags[name] !== undefined;
    const raw = fromFlag ? flags[name] : env[s.env] === '' ? undefined : env[s.env];
    const parsed = s.schema.safeParse(raw);
    if (!parsed.success) {
      const source = fromFlag ? s.flag! : s.env;
      throw new ConfigError(source, `invalid ${source}${s.secret ? ' (value not shown)' : ` ${display(String(raw))}`}: expected ${s.expected}`);
    }
    config[name] = parsed.data;
  }
  const c = config as Omit<Config, 'requestLimits' | 's3'>;
  const ratePerSecond = c.rateLimitRps ?? DEFAULT_REQUEST_LIMITS.ratePerSecond;
  const requestLimits: RequestLimitsConfig = {
    ratePerSecond,
    // Unset, the bucket holds one second of the rate.
    burst: c.rateLimitBurst ?? (c.rateLimitRps !== null ? Math.max(1, ratePerSecond) : DEFAULT_REQUEST_LIMITS.burst),
    concurrency: { search: c.searchConcurrency, text: c.textConcurrency },
  };
  const s3 = c.s3Bucket ? { bucket: c.s3Bucket, endpoint: c.s3Endpoint, region: c.s3Region, forcePathStyle: c.s3ForcePathStyle } : null;
  return { ...c, requestLimits, s3, ...overrides };
}
