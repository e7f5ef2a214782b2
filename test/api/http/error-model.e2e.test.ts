import assert from 'node:assert/strict';
import net from 'node:net';
import zlib from 'node:zlib';
import type { Container } from 'inversify';
import { z } from '../../../src/http/zod';
import { defineRoute, type RouteModule } from '../../../src/http/route';
import { qInt, qList } from '../../../src/http/validation';
import { TOKENS } from '../../../src/ports/tokens';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';

/** A route that exercises the validation layer the way feature routes do. */
const probe: RouteModule = {
  routes: () => [
    defineRoute({
      method: 'post',
      paths: ['/probe/{id}', '/insurance/probe/{id}'],
      operationId: ['probe', 'insuranceProbe'],
      summary: 'test probe',
      bodyLimit: 16 * 1024,
      params: z.strictObject({ id: z.uuid() }),
      query: z.strictObject({ limit: qInt(1, 10).optional(), tag: qList(z.string().min(1).max(5)).optional() }),
      body: z.strictObject({ name: z.string().min(1).max(20), nested: z.strictObject({ n: z.number().int() }).optional() }),
      responses: { 200: { description: 'echo' } },
      handler: async ({ body, query, params }) => ({ body: { body, query, params } }),
    }),
    defineRoute({
      method: 'get',
      paths: ['/probe-crash'],
      operationId: 'probeCrash',
      summary: 'throws an unexpected error',
      responses: { 200: { description: 'never' } },
      handler: async () => {
        throw new Error('secret internal detail: password=hunter2');
      },
    }),
  ],
};

describe('HTTP error model', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  const id = '00000000-0000-4000-8000-000000000001';
  before(async () => {
    t = await startTestRuntime({}, (c: Container) => c.bind(TOKENS.RouteModule).toConstantValue(probe));
    caller = await makeCaller(t.rt);
  });
  after(async () => t.close());
  const api = () => client(t.baseUrl, caller.apiKey);

  it('both path forms are served by the same handler', async () => {
    for (const p of [`/probe/${id}`, `/insurance/probe/${id}`]) {
      const r = await api().post(`${p}?limit=3&tag=a&tag=b`, { name: 'x' });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.query, { limit: 3, tag: ['a', 'b'] });
    }
  });

  it('rule: unknown body fields are invalid_request with unknown_field details', async () => {
    const r = await api().post(`/probe/${id}`, { name: 'x', extra: 1, nested: { n: 1, deeper: true } });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'invalid_request');
    const unknown = r.body.details.filter((d: any) => d.code === 'unknown_field').map((d: any) => d.path.join('.'));
    assert.deepEqual(unknown.sort(), ['extra', 'nested.deeper']);
    assert.ok(r.body.details.every((d: any) => d.location === 'body'));
  });

  it('rule: details name location, path and code for required, type and bound violations', async () => {
    const r = await api().post(`/probe/not-a-uuid?limit=0`, { nested: { n: 'one' } });
    assert.equal(r.status, 400);
    const byLoc = (loc: string) => r.body.details.filter((d: any) => d.location === loc);
    assert.ok(byLoc('path').some((d: any) => d.path[0] === 'id' && d.code === 'invalid_value'));
    // Stops at the first failing location: the path is checked before query and body.
    const r2 = await api().post(`/probe/${id}?limit=0`, { nested: { n: 'one' } });
    assert.ok(r2.body.details.some((d: any) => d.location === 'query' && d.path[0] === 'limit' && d.code === 'invalid_value'));
    const r3 = await api().post(`/probe/${id}`, { nested: { n: 'one' } });
    const codes = Object.fromEntries(r3.body.details.map((d: any) => [d.path.join('.'), d.code]));
    assert.equal(codes.name, 'required');
    assert.equal(codes['nested.n'], 'invalid_type');
    for (const d of r3.body.details) assert.ok(d.message.length >= 1 && d.message.length <= 200);
  });

  it('rule: a scalar query parameter given twice is rejected; a set filter accepts at most its bound', async () => {
    assert.equal((await api().post(`/probe/${id}?limit=1&limit=2`, { name: 'x' })).status, 400);
    const many = Array.from({ length: 101 }, () => 'tag=a').join('&');
    const r = await api().post(`/probe/${id}?${many}`, { name: 'x' });
    assert.equal(r.status, 400);
  });

  it('rule: malformed JSON is 400 invalid_request, a non-JSON content type 415, a body over the limit 413', async () => {
    const bad = await api().call('POST', `/probe/${id}`, '{"name": ', { 'Content-Type': 'application/json' });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_request');
    const form = await api().call('POST', `/probe/${id}`, 'name=x', { 'Content-Type': 'application/x-www-form-urlencoded' });
    assert.equal(form.status, 415);
    assert.equal(form.body.code, 'unsupported_media_type');
    const big = await api().post(`/probe/${id}`, { name: 'x'.repeat(20_000) });
    assert.equal(big.status, 413);
    assert.equal(big.body.code, 'request_too_large');
  });

  it('rule: a plain JSON body (read without body-parser) answers as body-parser would: BOM dropped, a top-level scalar or blank body 400, charset utf8 415, gzip still read', async () => {
    const raw = (body: Buffer | string, headers: Record<string, string>) =>
      fetch(`${t.baseUrl}/probe/${id}`, { method: 'POST', headers: { Authorization: `Bearer ${caller.apiKey}`, 'Content-Type': 'application/json', ...headers }, body });
    const bom = await raw(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name": "bom"}')]), {});
    assert.equal(bom.status, 200);
    assert.deepEqual(((await bom.json()) as { body: unknown }).body, { name: 'bom' });
    for (const body of ['5', '"name"', '   ', 'null']) {
      const r = await raw(body, {});
      assert.equal(r.status, 400, body);
      assert.equal(((await r.json()) as { code: string }).code, 'invalid_request');
    }
    assert.equal((await raw('{"name": "x"}', { 'Content-Type': 'application/json; charset=utf8' })).status, 415);
    assert.equal((await raw('{"name": "x"}', { 'Content-Type': 'application/json; charset="UTF-8"' })).status, 200);
    const gz = await raw(zlib.gzipSync('{"name": "zipped"}'), { 'Content-Encoding': 'gzip' });
    assert.equal(gz.status, 200);
    assert.deepEqual(((await gz.json()) as { body: unknown }).body, { name: 'zipped' });
  });

  it('rule: validation details are bounded (at most 20, paths of at most 12 segments of 64 characters)', async () => {
    const body: Record<string, number> = { name: 1 } as never;
    for (let i = 0; i < 40; i++) body[`f${'x'.repeat(80)}${i}`] = i;
    const r = await api().post(`/probe/${id}`, body);
    assert.equal(r.status, 400);
    assert.ok(r.body.details.length >= 1 && r.body.details.length <= 20);
    for (const d of r.body.details) {
      assert.ok(d.path.length <= 12);
      for (const seg of d.path) assert.ok(seg.length <= 64);
    }
  });

  it('rule: a NUL character anywhere in the input is a coded 400, never a database error', async () => {
    const body = await api().post(`/probe/${id}`, { name: 'a\u0000b' });
    assert.equal(body.status, 400);
    assert.deepEqual(body.body.details[0], { location: 'body', path: ['name'], code: 'invalid_value', message: 'Text may not contain NUL (U+0000) characters or unpaired UTF-16 surrogates.' });
    const query = await api().post(`/probe/${id}?tag=%00`, { name: 'x' });
    assert.equal(query.status, 400);
    assert.equal(query.body.details[0].location, 'query');
  });

  it('rule: never a 500 for bad input: a path segment that is not valid percent-encoding is a coded 400 invalid_request', async () => {
    for (const seg of ['%', '%E0%A4%A', '%zz']) {
      const r = await api().post(`/probe/${seg}`, { name: 'x' });
      assert.equal(r.status, 400, seg);
      assert.equal(r.body.code, 'invalid_request', seg);
      assert.deepEqual(r.body.details.map((d: { location: string; code: string }) => [d.location, d.code]), [['path', 'invalid_value']]);
      assert.equal(r.body.requestId, r.headers.get('x-request-id'));
    }
    // Authentication still comes first (README, Decisions): a bad key on such a path is a 401.
    const unauth = await client(t.baseUrl, 'ifrs_bad').post('/probe/%', { name: 'x' });
    assert.equal(unauth.status, 401);
    assert.equal(unauth.body.code, 'unauthenticated');
  });

  it('rule: an unexpected fault is a 500 internal_error that leaks nothing', async () => {
    const r = await api().get('/probe-crash');
    assert.equal(r.status, 500);
    assert.equal(r.body.code, 'internal_error');
    assert.doesNotMatch(r.text, /hunter2|secret internal/);
    assert.equal(r.body.requestId, r.headers.get('x-request-id'));
  });

  it('rule: a method a known path does not serve is a coded 405 whose Allow names the methods it serves', async () => {
    const r = await api().delete(`/probe/${id}`);
    assert.equal(r.status, 405);
    assert.equal(r.body.code, 'method_not_allowed');
    assert.equal(r.headers.get('allow'), 'POST');
  });

  it('rule: a request the HTTP parser rejects (headers over the 1 MiB limit, broken syntax) still gets a coded JSON error', async () => {
    const long = await api().post(`/probe/${id}?tag=${'x'.repeat(1024 * 1024)}`, { name: 'x' });
    assert.equal(long.status, 431);
    assert.equal(long.body.code, 'request_header_too_large');
    assert.equal(typeof long.body.requestId, 'string');
    // DESIGN.md: every response carries X-Request-Id, and errors repeat it in requestId.
    assert.equal(long.headers.get('x-request-id'), long.body.requestId);
    const { port } = new URL(t.baseUrl);
    const raw = await new Promise<string>((resolve, reject) => {
      const s = net.connect(Number(port), '127.0.0.1', () => s.end('GET /api/v2/users/me HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n'));
      let out = '';
      s.on('data', (d) => (out += d));
      s.on('end', () => resolve(out));
      s.on('error', reject);
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
    const parsed = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4));
    assert.equal(parsed.code, 'invalid_request');
    assert.equal(/\r\nX-Request-Id: ([^\r]+)\r\n/i.exec(raw)?.[1], parsed.requestId);
  });
});
