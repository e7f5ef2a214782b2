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
});
