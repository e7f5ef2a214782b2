import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config';

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
