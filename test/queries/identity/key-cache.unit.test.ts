import assert from 'node:assert/strict';
import { KeyCache } from '../../../queries/identity/key-cache';

/** A loader whose answers the test releases by hand, and a clock the test moves. */
function fixture(ttlMs = 1000) {
  let now = 0;
  const calls: { key: string; resolve(v: string): void; reject(e: Error): void }[] = [];
  const cache = new KeyCache<string>(
    (key) => new Promise<string>((resolve, reject) => calls.push({ key, resolve, reject })),
    ttlMs,
    3,
    () => now,
  );
  return { cache, calls, tick: (ms: number) => (now += ms), flush: () => new Promise((r) => setImmediate(r)) };
}

describe('KeyCache (API key answers)', () => {
  it('regression (p99 spike every TTL): concurrent misses for one key share a single look-up', async () => {
    const { cache, calls } = fixture();
    const answers = [cache.get('k'), cache.get('k'), cache.get('k')];
    assert.equal(calls.length, 1);
    calls[0].resolve('alice');
    assert.deepEqual(await Promise.all(answers), ['alice', 'alice', 'alice']);
  });

  it('answers a cached key synchronously, without a look-up', async () => {
    const { cache, calls } = fixture();
    const first = cache.get('k');
    calls[0].resolve('alice');
    await first;
    assert.equal(cache.get('k'), 'alice');
    assert.equal(calls.length, 1);
  });

  it('refreshes an entry in the second half of its life in the background, serving the valid answer meanwhile', async () => {
    const { cache, calls, tick, flush } = fixture(1000);
    const first = cache.get('k');
    calls[0].resolve('alice');
    await first;
    tick(400);
    assert.equal(cache.get('k'), 'alice');
    assert.equal(calls.length, 1, 'no refresh in the first half');
    tick(200);
    assert.equal(cache.get('k'), 'alice', 'served from the cache while refreshing');
    assert.equal(cache.get('k'), 'alice');
    assert.equal(calls.length, 2, 'one refresh');
    calls[1].resolve('alice (renamed)');
    await flush();
    tick(900);
    assert.equal(cache.get('k'), 'alice (renamed)', 'the refreshed answer counts from its own look-up');
  });

  it('never serves an answer more than the TTL after its look-up started (revocation bound)', async () => {
    const { cache, calls, tick } = fixture(1000);
    const first = cache.get('k');
    tick(300); // a slow look-up: the clock runs from when it started
    calls[0].resolve('alice');
    await first;
    tick(650);
    assert.equal(cache.get('k'), 'alice');
    calls[1].resolve('revoked'); // the background refresh sees the revocation
    await new Promise((r) => setImmediate(r));
    assert.equal(cache.get('k'), 'revoked');
  });

  it('does not serve an expired answer when its refresh has not come back', async () => {
    const { cache, calls, tick } = fixture(1000);
    const first = cache.get('k');
    calls[0].resolve('alice');
    await first;
    tick(600);
    cache.get('k'); // starts the refresh
    tick(500); // expired; the refresh is still out
    const answer = cache.get('k');
    assert.ok(answer instanceof Promise, 'waits for the look-up');
    assert.equal(calls.length, 2, 'and shares the refresh already under way');
    calls[1].resolve('revoked');
    assert.equal(await answer, 'revoked');
  });

  it('passes a failed look-up to its waiters and caches nothing', async () => {
    const { cache, calls } = fixture();
    const a = cache.get('k');
    calls[0].reject(new Error('database away'));
    await assert.rejects(Promise.resolve(a), /database away/);
    const b = cache.get('k');
    assert.equal(calls.length, 2);
    calls[1].resolve('alice');
    assert.equal(await b, 'alice');
  });

  it('stays bounded: a flood of keys empties it instead of growing without end', async () => {
    const { cache, calls, flush } = fixture();
    for (const k of ['a', 'b', 'c', 'd']) {
      const p = cache.get(k);
      calls[calls.length - 1].resolve(k);
      await p;
    }
    await flush();
    assert.equal(cache.get('d'), 'd');
    assert.ok(cache.get('a') instanceof Promise, 'older keys were dropped');
  });
});
