import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createIfrsClient, IfrsError, items, ok, pages, retryDelayMs } from '../../../clients/typescript/src';
import { catalogFiling, importRecords } from '../../support/catalog-records';
import { makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';

describe('TypeScript SDK (clients/typescript) against the real service', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  let caller: TestCaller;
  const imported: string[] = [];

  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt);
    const records = Array.from({ length: 5 }, (_, i) => catalogFiling({ state: 'FL', submissionDate: `2025-01-0${i + 1}` }));
    const r = await importRecords(t.rt, records);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
    imported.push(...records.map((f) => String(f.id)));
  });
  after(async () => t.close());

  it('rule: the key authenticates and typed answers come back (GET /users/me)', async () => {
    const api = createIfrsClient({ baseUrl: t.baseUrl, apiKey: caller.apiKey });
    const me = await ok(api.GET('/users/me'));
    assert.equal(me.id, caller.userId);
    assert.equal(me.tenantId, caller.tenantId);
  });

  it('rule: page iteration follows nextCursor until it is null', async () => {
    const api = createIfrsClient({ baseUrl: t.baseUrl, apiKey: caller.apiKey });
    const fetchPage = (cursor: string | undefined) =>
      ok(api.GET('/insurance/filings', { params: { query: { state: 'FL', limit: 2, cursor } } }));
    let n = 0;
    for await (const page of pages(fetchPage)) {
      n++;
      assert.ok(page.filings.length <= 2);
    }
    assert.equal(n, 3, '5 filings in pages of 2');
    const ids: string[] = [];
    for await (const f of items(fetchPage, 'filings')) ids.push(f.id);
    assert.deepEqual([...ids].sort(), [...imported].sort());
  });

  it('rule: an error answer is an IfrsError carrying status, code and requestId', async () => {
    const api = createIfrsClient({ baseUrl: t.baseUrl, apiKey: caller.apiKey });
    await assert.rejects(api.GET('/insurance/filings/{filingId}', { params: { path: { filingId: '00000000-0000-4000-8000-000000000000' } } }), (e: unknown) => {
      assert.ok(e instanceof IfrsError);
      assert.equal(e.status, 404);
      assert.equal(e.code, 'not_found');
      assert.match(e.requestId ?? '', /\S/);
      return true;
    });
    const anonymous = createIfrsClient({ baseUrl: t.baseUrl, apiKey: 'ifrs_not_a_key' });
    await assert.rejects(anonymous.GET('/users/me'), (e: unknown) => e instanceof IfrsError && e.status === 401 && e.code === 'unauthenticated');
  });

  it('rule: 429 and 503 are retried after Retry-After; a write without Idempotency-Key is not retried on 503', async () => {
    // A stand-in upstream that answers as the service does under load, so the client's waits are observable.
    const seen: { method: string; at: number }[] = [];
    const upstream = http.createServer((req, res) => {
      seen.push({ method: req.method!, at: Date.now() });
      const n = seen.length;
      const status = req.method === 'GET' ? (n === 1 ? 429 : n === 2 ? 503 : 200) : 503;
      res.writeHead(status, { 'Content-Type': 'application/json', 'Retry-After': '1', 'X-Request-Id': `r${n}` });
      res.end(JSON.stringify(status === 200 ? { id: 'u', tenantId: 't', name: null, email: null } : { error: 'busy', code: status === 429 ? 'rate_limited' : 'temporarily_unavailable', requestId: `r${n}` }));
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api/v2`;
      const api = createIfrsClient({ baseUrl: base, apiKey: 'k' });
      const me = await ok(api.GET('/users/me'));
      assert.equal(me.id, 'u');
      assert.equal(seen.length, 3);
      assert.ok(seen[1].at - seen[0].at >= 950 && seen[2].at - seen[1].at >= 950, 'each retry waited Retry-After');
      seen.length = 0;
      const uuid = '00000000-0000-4000-8000-000000000000';
      await assert.rejects(api.POST('/managed-filings', { body: { scope: 's', companyId: uuid, jurisdictionId: uuid, primaryProductId: uuid, filingType: 'rate' } }), (e: unknown) => e instanceof IfrsError && e.status === 503);
      assert.equal(seen.length, 1, 'a non-idempotent write is sent once');
    } finally {
      upstream.close();
    }
  });

  it('rule: Retry-After in seconds or as an HTTP date, capped; absent → growing default', () => {
    assert.equal(retryDelayMs('2', 0, 30_000), 2000);
    assert.equal(retryDelayMs('120', 0, 30_000), 30_000);
    const inFive = new Date(Date.now() + 5000).toUTCString();
    assert.ok(Math.abs(retryDelayMs(inFive, 0, 30_000) - 5000) < 1100);
    assert.equal(retryDelayMs(null, 0, 30_000), 250);
    assert.equal(retryDelayMs('soon', 2, 30_000), 1000);
  });
});
