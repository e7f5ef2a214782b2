import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import { PostgresSearchIndex } from '../../../infra/search/postgres-search-index';
import { DEFAULT_REQUEST_LIMITS, type RequestLimitsConfig } from '../../../src/http/request-limits';
import { collectRoutes } from '../../../src/server';
import { TOKENS } from '../../../src/ports/tokens';
import { client, makeCaller, startTestRuntime, type ApiResponse, type TestCaller, type TestRuntime } from '../../support/runtime';

const SEARCH = { query: 'wildfire surcharge', intent: 'how carriers price wildfire exposure' };

function assertRateLimited(r: ApiResponse): void {
  assert.equal(r.status, 429, r.text);
  assert.equal(r.body.code, 'rate_limited');
  assert.equal(typeof r.body.error, 'string');
  assert.match(r.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
  assert.equal(r.body.requestId, r.headers.get('x-request-id'));
  assert.ok(r.headers.get('ratelimit'), 'RateLimit field');
  assert.ok(r.headers.get('ratelimit-policy'), 'RateLimit-Policy field');
}

/** A search index whose searches wait until the test opens the gate: requests stay in flight on demand. */
function gatedSearch() {
  let open: () => void = () => undefined;
  let gate: Promise<void> = Promise.resolve();
  let waiting = 0;
  return {
    close() {
      gate = new Promise((r) => (open = r));
    },
    open: () => open(),
    waiting: () => waiting,
    wrap(inner: PostgresSearchIndex): PostgresSearchIndex {
      return new Proxy(inner, {
        get(target, prop) {
          const value = Reflect.get(target, prop, target);
          if (prop !== 'search') return typeof value === 'function' ? value.bind(target) : value;
          return async (...args: unknown[]) => {
            waiting++;
            try {
              await gate;
            } finally {
              waiting--;
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    },
  };
}

async function until(check: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('request limits per API key (extension: 429 rate_limited)', () => {
  describe('token bucket', () => {
    let t: TestRuntime;
    let a: TestCaller;
    let b: TestCaller;
    const limits: RequestLimitsConfig = { ratePerSecond: 0.2, burst: 3, concurrency: { search: 0, text: 0 } };
    before(async () => {
      t = await startTestRuntime({ requestLimits: limits });
      a = await makeCaller(t.rt);
      b = await makeCaller(t.rt, { tenantId: a.tenantId });
    });
    after(async () => t?.close());

    it('rule: a key over its bucket gets 429 rate_limited, coded JSON with Retry-After, RateLimit and RateLimit-Policy (draft-ietf-httpapi-ratelimit-headers-10)', async () => {
      const api = client(t.baseUrl, a.apiKey);
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await api.get('/users/me'));
      assert.deepEqual(answers.map((r) => r.status), [200, 200, 200, 429]);
      // The fields come once more than half the bucket is used (fewer than 1.5 of 3 tokens left), and with every 429.
      assert.deepEqual(answers.map((r) => r.headers.get('ratelimit-policy')), [null, ...Array(3).fill('"per-key";q=3;w=15')]);
      // r: whole requests left; t: seconds until the bucket is full again (3 tokens at 0.2/s: up to 15).
      assert.equal(answers[0].headers.get('ratelimit'), null);
      assert.deepEqual(answers.slice(1).map((r) => /^"per-key";r=(\d+);t=(\d+)$/.exec(r.headers.get('ratelimit') ?? '')?.[1]), ['1', '0', '0']);
      for (const r of answers.slice(1)) assert.ok(Number(/t=(\d+)/.exec(r.headers.get('ratelimit')!)![1]) <= 15);
      assertRateLimited(answers[3]);
      assert.equal(answers[3].headers.get('retry-after'), '5', 'one token comes back every 5 s at 0.2/s');
      // The refusal counts nothing: the key's other routes, invalid requests included, are refused the same way.
      assertRateLimited(await api.get('/insurance/filings?limit=0'));
      assertRateLimited(await api.post('/insurance/filings/search', SEARCH));
    });

    it('rule: the bucket is per key: another key of the same tenant is not limited by it', async () => {
      assert.equal((await client(t.baseUrl, b.apiKey).get('/users/me')).status, 200);
    });

    it('rule: the limits run after authentication: a request without a valid key is a 401, never a 429', async () => {
      for (let i = 0; i < 5; i++) assert.equal((await client(t.baseUrl, 'ifrs_nope').get('/users/me')).status, 401);
    });

    it('rule: a signed address (no key) is limited by its client address', async () => {
      const anon = client(t.baseUrl);
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await anon.get('/signed/files/x/y/z?expires=1&signature=x')).status);
      assert.deepEqual(statuses.slice(0, 3).map((s) => s !== 429), [true, true, true]);
      assertRateLimited(await anon.get('/signed/files/x/y/z?expires=1&signature=x'));
    });
  });

  describe('concurrency cap on expensive routes', () => {
    let t: TestRuntime;
    let a: TestCaller;
    let b: TestCaller;
    const gate = gatedSearch();
    before(async () => {
      t = await startTestRuntime({ requestLimits: { ...DEFAULT_REQUEST_LIMITS, concurrency: { search: 2, text: 2 } } }, (c) => {
        c.rebindSync(TOKENS.SearchIndex)
          .toDynamicValue((ctx) => gate.wrap(new PostgresSearchIndex(ctx.get<Knex>(TOKENS.Knex))))
          .inSingletonScope();
      });
      a = await makeCaller(t.rt);
      b = await makeCaller(t.rt, { tenantId: a.tenantId });
    });
    after(async () => {
      gate.open();
      await t?.close();
    });

    it('rule: search and extracted text are the capped groups', () => {
      const groups = collectRoutes(t.rt).filter((r) => r.concurrency).flatMap((r) => r.paths.map((p) => `${r.method} ${p} ${r.concurrency}`));
      assert.deepEqual(groups.sort(), ['get /files/{fileId}/text text', 'post /filings/search search', 'post /insurance/filings/search search']);
    });

    it('rule: over the per-key cap of searches in flight a search gets 429 rate_limited with Retry-After at once (no queue); the key\'s other routes and other keys go on; a finished search frees its slot', async () => {
      const api = client(t.baseUrl, a.apiKey);
      gate.close();
      const held = [api.post('/insurance/filings/search', SEARCH), api.post('/filings/search', SEARCH)];
      await until(() => gate.waiting() === 2);
      const refused = await api.post('/insurance/filings/search', SEARCH);
      assertRateLimited(refused);
      assert.equal(refused.headers.get('retry-after'), '1');
      assert.match(refused.headers.get('ratelimit-policy') ?? '', /"search";q=2;qu="concurrent-requests"/);
      assert.match(refused.headers.get('ratelimit') ?? '', /"search";r=0/);
      assert.equal((await api.get('/users/me')).status, 200, 'other routes are not capped');
      // An invalid search never reaches the index and takes no slot.
      assert.equal((await api.post('/insurance/filings/search', { query: '' })).status, 400);
      const other = client(t.baseUrl, b.apiKey).post('/insurance/filings/search', SEARCH);
      await until(() => gate.waiting() === 3);
      gate.open();
      assert.deepEqual((await Promise.all([...held, other])).map((r) => r.status), [200, 200, 200]);
      const again = await api.post('/insurance/filings/search', SEARCH);
      assert.equal(again.status, 200);
      assert.equal(again.headers.get('ratelimit'), null, 'one of two slots taken: no fields');
    });
  });

  describe('defaults', () => {
    let t: TestRuntime;
    before(async () => {
      t = await startTestRuntime();
    });
    after(async () => t?.close());

    it('rule: every operation of the OpenAPI document lists 429 as an extension with Retry-After, RateLimit and RateLimit-Policy', async () => {
      const doc = (await client(t.baseUrl).get('/openapi.json')).body;
      let operations = 0;
      for (const [p, item] of Object.entries<any>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          operations++;
          const r = op.responses['429'];
          assert.ok(r, `${method} ${p}`);
          assert.equal(r['x-extension'], true, `${method} ${p}`);
          assert.deepEqual(Object.keys(r.headers).sort(), ['RateLimit', 'RateLimit-Policy', 'Retry-After', 'X-Request-Id']);
          assert.match(r.description, /rate_limited/);
        }
      }
      assert.ok(operations > 40);
    });

    it('rule: the default limits leave a heavy client unthrottled: 32 concurrent requests and 8 concurrent searches from one key are all answered', async () => {
      const caller = await makeCaller(t.rt);
      const api = client(t.baseUrl, caller.apiKey);
      const answers = await Promise.all([
        ...Array.from({ length: 32 }, () => api.get('/users/me')),
        ...Array.from({ length: DEFAULT_REQUEST_LIMITS.concurrency.search }, () => api.post('/insurance/filings/search', SEARCH)),
      ]);
      assert.deepEqual(new Set(answers.map((r) => r.status)), new Set([200]));
      // Far from the bucket's limit: no RateLimit fields, so the common answer pays nothing for them (the searches
      // may show their group's, when more than half its slots were taken).
      assert.deepEqual(new Set(answers.slice(0, 32).map((r) => r.headers.get('ratelimit'))), new Set([null]));
    });
  });
});
