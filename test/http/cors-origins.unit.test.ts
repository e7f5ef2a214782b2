import assert from 'node:assert/strict';
import { corsForOrigins, parseCorsOrigins } from '../../src/http/cors';

describe('IFRS_CORS_ORIGINS', () => {
  it('rule: unset or empty means CORS off', () => {
    assert.deepEqual(parseCorsOrigins(undefined), []);
    assert.deepEqual(parseCorsOrigins(' '), []);
    assert.equal(corsForOrigins([]), null);
  });

  it('rule: a comma-separated list of exact origins is the allow-list', () => {
    assert.deepEqual(parseCorsOrigins('https://app.example.com, http://localhost:5173,'), ['https://app.example.com', 'http://localhost:5173']);
  });

  it('rule: a value that is not exactly an origin stops the start with a message naming it', () => {
    for (const bad of ['*', 'app.example.com', 'https://app.example.com/', 'https://app.example.com/path', 'ftp://files.example.com']) {
      assert.throws(() => parseCorsOrigins(bad), (e: Error) => e.message.includes(`"${bad}"`), bad);
    }
  });
});
