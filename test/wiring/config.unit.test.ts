import assert from 'node:assert/strict';
import { ConfigError, SETTINGS, loadConfig } from '../../src/config';

describe('configuration from the environment', () => {
  it('rule (OPERATIONS.md): serve listens on port 8080 and host 127.0.0.1 by default, env PORT / HOST otherwise; an empty variable is the default', () => {
    assert.equal(loadConfig({}).port, 8080);
    assert.equal(loadConfig({}).host, '127.0.0.1');
    assert.equal(loadConfig({ PORT: '9090', HOST: '0.0.0.0' }).port, 9090);
    assert.equal(loadConfig({ PORT: '9090', HOST: '0.0.0.0' }).host, '0.0.0.0');
    // An empty PORT was port 0 (a random port) and an empty HOST every interface.
    assert.equal(loadConfig({ PORT: '', HOST: '' }).port, 8080);
    assert.equal(loadConfig({ PORT: '', HOST: '' }).host, '127.0.0.1');
  });

  it('rule (OPERATIONS.md): the data directory is IFRS_DATA_DIR, else ./.data (an empty variable is the default)', () => {
    assert.equal(loadConfig({ IFRS_DATA_DIR: '/tmp/x' }).dataDir, '/tmp/x');
    assert.equal(loadConfig({}).dataDir, require('node:path').resolve('./.data'));
    assert.equal(loadConfig({ IFRS_DATA_DIR: '' }).dataDir, require('node:path').resolve('./.data'));
  });

  it('rule (README, configuration): statement timeout and pool bounds come from IFRS_STATEMENT_TIMEOUT_MS and IFRS_DB_*, with defaults; an empty variable is the default, 0 is 0', () => {
    const d = loadConfig({});
    assert.deepEqual([d.statementTimeoutMs, d.dbWorkMem, d.dbPoolMaxUses, d.dbPoolMaxLifetimeSeconds, d.dbPoolIdleTimeoutMs], [10_000, '16MB', 10_000, 1800, 30_000]);
    const c = loadConfig({ IFRS_STATEMENT_TIMEOUT_MS: '0', IFRS_DB_WORK_MEM: '8MB', IFRS_DB_POOL_MAX_USES: '50', IFRS_DB_POOL_MAX_LIFETIME_S: '60', IFRS_DB_POOL_IDLE_MS: '1000' });
    assert.deepEqual([c.statementTimeoutMs, c.dbWorkMem, c.dbPoolMaxUses, c.dbPoolMaxLifetimeSeconds, c.dbPoolIdleTimeoutMs], [0, '8MB', 50, 60, 1000]);
    assert.equal(loadConfig({ IFRS_STATEMENT_TIMEOUT_MS: '' }).statementTimeoutMs, 10_000);
  });
});

describe('the Idempotency-Key lease (extension)', () => {
  it('rule: IFRS_IDEMPOTENCY_LEASE_MS sets the lease in milliseconds; unset, it is left to the container (derived from the read-your-writes timeout); a bad value is refused', () => {
    assert.equal(loadConfig({ IFRS_IDEMPOTENCY_LEASE_MS: '2000' }).idempotencyLeaseMs, 2000);
    assert.equal(loadConfig({}).idempotencyLeaseMs, null);
    assert.throws(() => loadConfig({ IFRS_IDEMPOTENCY_LEASE_MS: '2s' }), (e: unknown) => e instanceof ConfigError && /^invalid IFRS_IDEMPOTENCY_LEASE_MS "2s"/.test(e.message));
    assert.throws(() => loadConfig({ IFRS_IDEMPOTENCY_LEASE_MS: '50' }), ConfigError);
  });
});

describe('configuration validated before anything starts (zod)', () => {
  const invalid = (env: NodeJS.ProcessEnv, flags: Record<string, string> = {}) => {
    try {
      loadConfig(env, {}, flags);
    } catch (e) {
      assert.ok(e instanceof ConfigError, String(e));
      return e.message;
    }
    assert.fail('accepted');
  };

  it('rule: a bad value is one line naming the variable, the value and what is expected', () => {
    assert.equal(invalid({ PORT: 'abc' }), 'invalid PORT "abc": expected an integer 0-65535 (0: any free port)');
    assert.equal(invalid({ PORT: '65536' }), 'invalid PORT "65536": expected an integer 0-65535 (0: any free port)');
    assert.equal(invalid({ PORT: '80.5' }), 'invalid PORT "80.5": expected an integer 0-65535 (0: any free port)');
    assert.match(invalid({ HOST: 'not a host' }), /^invalid HOST "not a host": expected an IP address or a host name$/);
    assert.match(invalid({ LOG_LEVEL: 'loud' }), /^invalid LOG_LEVEL "loud": expected one of fatal, error/);
    assert.match(invalid({ KAFKA_BROKERS: 'localhost' }), /^invalid KAFKA_BROKERS "localhost": expected a comma-separated list of host:port$/);
    assert.match(invalid({ ELASTICSEARCH_URL: 'localhost:9200' }), /^invalid ELASTICSEARCH_URL "localhost:9200": expected an http/);
    assert.match(invalid({ ESDB_URL: 'http://x' }), /^invalid ESDB_URL/);
    assert.match(invalid({ PUBLIC_BASE_URL: 'example.com' }), /^invalid PUBLIC_BASE_URL/);
    assert.match(invalid({ KAFKA_TOPIC: 'a topic' }), /^invalid KAFKA_TOPIC/);
    assert.match(invalid({ ELASTICSEARCH_INDEX: 'Upper' }), /^invalid ELASTICSEARCH_INDEX/);
    assert.match(invalid({ IFRS_RYW_TIMEOUT_MS: '-1' }), /^invalid IFRS_RYW_TIMEOUT_MS "-1"/);
    assert.match(invalid({ IFRS_READY_MAX_LAG: 'lots' }), /^invalid IFRS_READY_MAX_LAG/);
    assert.match(invalid({ IFRS_HEAP_GROWTH_PERCENT: 'x' }), /^invalid IFRS_HEAP_GROWTH_PERCENT/);
    assert.match(invalid({ IFRS_PARALLEL_SCAVENGE: 'yes' }), /^invalid IFRS_PARALLEL_SCAVENGE "yes": expected 0 or 1$/);
    assert.match(invalid({ IFRS_BULK_NODE_FLAGS: 'no' }), /^invalid IFRS_BULK_NODE_FLAGS/);
    assert.match(invalid({ IFRS_DEMO_FILINGS: '-3' }), /^invalid IFRS_DEMO_FILINGS/);
  });

  it('rule: credentials are never echoed in the error', () => {
    const url = invalid({ DATABASE_URL: 'mysql://admin:hunter2@db/x' });
    assert.equal(url, 'invalid DATABASE_URL (value not shown): expected a postgres:// or postgresql:// URL');
    const secret = invalid({ IFRS_SECRET: 'short-secret' });
    assert.ok(!secret.includes('short-secret'), secret);
    assert.match(secret, /^invalid IFRS_SECRET \(value not shown\)/);
  });

  it('rule: a flag wins over its variable and a bad flag is named as the flag', () => {
    assert.equal(loadConfig({ PORT: '9090' }, {}, { port: '7070' }).port, 7070);
    assert.equal(loadConfig({ PORT: 'abc' }, {}, { port: '7070' }).port, 7070);
    assert.equal(invalid({ PORT: '9090' }, { port: 'abc' }), 'invalid --port "abc": expected an integer 0-65535 (0: any free port)');
    assert.equal(invalid({}, { port: '' }), 'invalid --port "": expected an integer 0-65535 (0: any free port)');
    assert.match(invalid({}, { host: 'a b' }), /^invalid --host "a b"/);
    assert.equal(loadConfig({}, {}, { dataDir: 'rel/dir' }).dataDir, require('node:path').resolve('rel/dir'));
  });

  it('rule: good values are typed, unset ones take their defaults', () => {
    const c = loadConfig({
      PORT: '0',
      HOST: '::1',
      DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
      KAFKA_BROKERS: '127.0.0.1:9092, 127.0.0.2:9093',
      ELASTICSEARCH_URL: 'http://127.0.0.1:9200',
      ESDB_URL: 'esdb://127.0.0.1:2113?tls=false',
      IFRS_RYW_TIMEOUT_MS: '250',
      LOG_LEVEL: 'debug',
      IFRS_PARALLEL_SCAVENGE: '1',
    });
    assert.equal(c.port, 0);
    assert.equal(c.host, '::1');
    assert.deepEqual(c.kafkaBrokers, ['127.0.0.1:9092', '127.0.0.2:9093']);
    assert.equal(c.readYourWritesTimeoutMs, 250);
    assert.equal(c.logLevel, 'debug');
    assert.equal(c.parallelScavenge, true);
    const d = loadConfig({});
    assert.equal(d.databaseUrl, null);
    assert.equal(d.kafkaBrokers, null);
    assert.equal(d.kafkaTopic, 'ifrs.events');
    assert.equal(d.readYourWritesTimeoutMs, 5000);
    assert.equal(d.readyMaxLag, 10000);
    assert.equal(d.logLevel, 'info');
    assert.equal(loadConfig({ IFRS_RYW_TIMEOUT_MS: '' }).readYourWritesTimeoutMs, 5000);
  });

  it('rule: every setting has a variable, a description of a valid value, and unset is valid', () => {
    const envs = Object.values(SETTINGS).map((s) => s.env);
    assert.equal(new Set(envs).size, envs.length);
    for (const [name, s] of Object.entries(SETTINGS)) {
      assert.ok(s.expected.length > 0, name);
      assert.ok(s.schema.safeParse(undefined).success, name);
    }
  });
});
