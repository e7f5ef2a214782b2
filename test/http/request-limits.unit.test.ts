import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { AppError } from '../../src/domain/errors';
import { ConcurrencyCaps, DEFAULT_REQUEST_LIMITS, RequestLimits, TokenBuckets } from '../../src/http/request-limits';
import { loadConfig } from '../../src/config';

const loadRequestLimits = (env: NodeJS.ProcessEnv) => loadConfig(env).requestLimits;

/** A hand-moved clock, in milliseconds. */
function clock(start = 1_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

/** The headers a limit sets, without a server. */
function fakeResponse() {
  const headers = new Map<string, string>();
  return {
    headers,
    res: {
      setHeader: (k: string, v: string) => headers.set(k.toLowerCase(), v),
      getHeader: (k: string) => headers.get(k.toLowerCase()),
    } as unknown as ServerResponse,
  };
}

function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AppError);
    return e;
  }
  assert.fail('expected a refusal');
}

describe('request limits: token bucket and concurrency caps', () => {
  it('rule: a key may send `burst` requests at once, then one per 1/rate seconds as its bucket refills', () => {
    const c = clock();
    const b = new TokenBuckets(2, 3, c.now);
    assert.deepEqual([1, 2, 3, 4].map(() => b.take('k').allowed), [true, true, true, false]);
    c.advance(499);
    assert.equal(b.take('k').allowed, false, 'less than one token back after 499 ms at 2/s');
    c.advance(1);
    assert.equal(b.take('k').allowed, true, 'one token back after 500 ms');
    assert.equal(b.take('k').allowed, false);
    c.advance(60_000);
    assert.equal(b.take('k').tokens, 2, 'refilled up to the burst, never past it');
  });

  it('rule: each key has its own bucket', () => {
    const b = new TokenBuckets(1, 1, clock().now);
    assert.equal(b.take('a').allowed, true);
    assert.equal(b.take('a').allowed, false);
    assert.equal(b.take('b').allowed, true);
  });

  it('rule: full buckets are forgotten, so the map only holds recently busy keys', () => {
    const c = clock();
    const b = new TokenBuckets(10, 10, c.now);
    for (let i = 0; i < 100; i++) b.take(`key-${i}`);
    assert.equal(b.size, 100);
    c.advance(61_000);
    b.take('busy');
    assert.equal(b.size, 1);
  });

  it('rule: a refusal is 429 rate_limited with Retry-After (seconds until a token is back) and the RateLimit fields, which are sent once more than half the bucket is used', () => {
    const c = clock();
    const limits = new RequestLimits({ ratePerSecond: 0.5, burst: 4, concurrency: { search: 0, text: 0 } }, c.now);
    const quiet = [fakeResponse(), fakeResponse()];
    for (const q of quiet) limits.admit('k', q.res);
    assert.deepEqual(quiet.map((q) => q.headers.size), [0, 0], 'half the bucket or more left: no fields');
    const ok = fakeResponse();
    limits.admit('k', ok.res);
    assert.equal(ok.headers.get('ratelimit-policy'), '"per-key";q=4;w=8');
    assert.equal(ok.headers.get('ratelimit'), '"per-key";r=1;t=6');
    limits.admit('k', fakeResponse().res);
    const refused = fakeResponse();
    const e = refusal(() => limits.admit('k', refused.res));
    assert.equal(e.status, 429);
    assert.equal(e.code, 'rate_limited');
    assert.equal(e.headers['Retry-After'], '2');
    assert.equal(refused.headers.get('ratelimit'), '"per-key";r=0;t=8');
    c.advance(2000);
    limits.admit('k', fakeResponse().res);
  });

  it('rule: a key holds at most `cap` requests of a group in flight; a refusal takes no slot; leaving frees one', () => {
    const caps = new ConcurrencyCaps();
    assert.equal(caps.enter('s', 2), true);
    assert.equal(caps.enter('s', 2), true);
    assert.equal(caps.enter('s', 2), false);
    assert.equal(caps.held('s'), 2);
    caps.leave('s');
    assert.equal(caps.enter('s', 2), true);
    assert.equal(caps.enter('other', 2), true, 'another key or group has its own slots');
  });

  it('rule: over the concurrency cap is 429 rate_limited with Retry-After, and the group shows in RateLimit and RateLimit-Policy once more than half its slots are taken', () => {
    const limits = new RequestLimits({ ratePerSecond: 1, burst: 3, concurrency: { search: 2, text: 0 } }, clock().now);
    const first = fakeResponse();
    limits.admit('k', first.res);
    assert.equal(limits.enter('search', 'k', first.res), true);
    assert.equal(first.headers.size, 0, 'half the bucket and half the slots left: no fields');
    const second = fakeResponse();
    limits.admit('k', second.res);
    assert.equal(limits.enter('search', 'k', second.res), true);
    assert.equal(second.headers.get('ratelimit-policy'), '"per-key";q=3;w=3, "search";q=2;qu="concurrent-requests"');
    assert.equal(second.headers.get('ratelimit'), '"per-key";r=1;t=2, "search";r=0');
    const third = fakeResponse();
    const e = refusal(() => limits.enter('search', 'k', third.res));
    assert.equal(e.status, 429);
    assert.equal(e.code, 'rate_limited');
    assert.equal(e.headers['Retry-After'], '1');
    assert.equal(third.headers.get('ratelimit'), '"search";r=0', 'a refusal always carries the fields');
  });

  it('rule: a refused slot takes nothing; a group with cap 0 is not limited; leaving frees a slot', () => {
    const limits = new RequestLimits({ ratePerSecond: 100, burst: 100, concurrency: { search: 1, text: 0 } }, clock().now);
    assert.equal(limits.enter('search', 'k', fakeResponse().res), true);
    const second = fakeResponse();
    refusal(() => limits.enter('search', 'k', second.res));
    limits.leave('search', 'k');
    assert.equal(limits.enter('search', 'k', second.res), true, 'the refusal took no slot: one leave() freed the only one');
    assert.equal(limits.enter('text', 'k', second.res), false, 'a group with cap 0 is not limited');
    limits.leave('search', 'k');
    assert.equal(limits.enter('search', 'k', fakeResponse().res), true);
  });

  it('rule: limits come from IFRS_RATE_LIMIT_RPS, IFRS_RATE_LIMIT_BURST, IFRS_SEARCH_CONCURRENCY, IFRS_TEXT_CONCURRENCY; 0 turns one off; bad values are refused', () => {
    assert.deepEqual(loadRequestLimits({}), DEFAULT_REQUEST_LIMITS);
    assert.deepEqual(loadRequestLimits({ IFRS_RATE_LIMIT_RPS: '50' }), { ...DEFAULT_REQUEST_LIMITS, ratePerSecond: 50, burst: 50 });
    assert.deepEqual(loadRequestLimits({ IFRS_RATE_LIMIT_RPS: '50', IFRS_RATE_LIMIT_BURST: '200', IFRS_SEARCH_CONCURRENCY: '0', IFRS_TEXT_CONCURRENCY: '3' }), {
      ratePerSecond: 50,
      burst: 200,
      concurrency: { search: 0, text: 3 },
    });
    const off = new RequestLimits(loadRequestLimits({ IFRS_RATE_LIMIT_RPS: '0' }));
    const r = fakeResponse();
    for (let i = 0; i < 100_000; i++) off.admit('k', r.res);
    assert.equal(r.headers.size, 0, 'no bucket, no RateLimit fields');
    assert.throws(() => loadRequestLimits({ IFRS_RATE_LIMIT_RPS: '-1' }), /IFRS_RATE_LIMIT_RPS/);
    assert.throws(() => loadRequestLimits({ IFRS_SEARCH_CONCURRENCY: 'many' }), /IFRS_SEARCH_CONCURRENCY/);
  });
});
