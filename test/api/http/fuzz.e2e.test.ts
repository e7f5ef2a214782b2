import assert from 'node:assert/strict';
import { collectRoutes } from '../../../src/server';
import type { RouteSpec } from '../../../src/http/route';
import http from 'node:http';
import { makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';

/** Raw HTTP (fetch refuses GET bodies; real clients do not). */
function rawRequest(baseUrl: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ status: number; text: string; body: any }> {
  const url = new URL(baseUrl + path);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: url.pathname + url.search, headers: { ...headers, ...(body !== undefined ? { 'Content-Length': String(Buffer.byteLength(body)) } : {}) } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => {
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = undefined;
        }
        resolve({ status: res.statusCode ?? 0, text, body: parsed });
      });
    });
    req.on('error', reject);
    if (body !== undefined) req.write(body);
    req.end();
  });
}

/** A small seeded PRNG so a failing case can be replayed from the printed seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)];
  return { next, pick, int: (n: number) => Math.floor(next() * n) };
}

const NASTY_STRINGS = ['', ' ', 'a', '0', '-1', '1e309', 'null', 'true', '%00', '%', '\u0000', '💥', 'é'.repeat(300), 'x'.repeat(5000), '../../etc/passwd', "' or 1=1 --", '%_%', 'mc:', 'mc:00000000-0000-4000-8000-000000000000', '00000000-0000-4000-8000-000000000000', 'TX', '04.0', 'ALSE-134016536', 'FL-26-013710', '2024-02-30', '2024-01-01', '[]', '{}'];

function shapeKeys(schema: unknown): string[] {
  const s = schema as { shape?: Record<string, unknown>; _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined;
  const shape = s?.shape ?? s?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

function randomJson(r: ReturnType<typeof prng>, depth = 0): unknown {
  switch (r.int(depth > 2 ? 5 : 8)) {
    case 0:
      return null;
    case 1:
      return r.next() < 0.5;
    case 2:
      return r.pick([0, -1, 1, 1.5, 2147483648, 1e308, -0]);
    case 3:
    case 4:
      return r.pick(NASTY_STRINGS);
    case 5:
      return Array.from({ length: r.int(4) }, () => randomJson(r, depth + 1));
    default:
      return Object.fromEntries(Array.from({ length: r.int(4) }, () => [r.pick(['x', 'query', 'filters', 'limit', 'cursor', 'scope', 'name']), randomJson(r, depth + 1)]));
  }
}

function randomBody(r: ReturnType<typeof prng>, route: RouteSpec): string | undefined {
  const choice = r.int(6);
  if (choice === 0) return undefined;
  if (choice === 1) return r.pick(['{', '{"a":', 'nul', '[1,2', '\u0000', '{"a":1}{"b":2}', '"just a string"', '123']);
  const keys = shapeKeys(route.body);
  const obj: Record<string, unknown> = {};
  for (const k of keys) if (r.next() < 0.7) obj[k] = randomJson(r);
  if (r.next() < 0.2) obj[r.pick(['unknownField', '__proto__', 'constructor'])] = randomJson(r);
  return choice === 2 ? JSON.stringify(randomJson(r)) : JSON.stringify(obj);
}

function randomQuery(r: ReturnType<typeof prng>, route: RouteSpec): string {
  const keys = [...shapeKeys(route.query), 'unknown', 'limit', 'cursor', 'sort'];
  const parts: string[] = [];
  for (let i = r.int(5); i > 0; i--) parts.push(`${encodeURIComponent(r.pick(keys))}${r.next() < 0.1 ? '[]' : ''}=${encodeURIComponent(r.pick(NASTY_STRINGS))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

describe('fuzz: every route answers bad input with a coded JSON 4xx, never a 500', function () {
  this.timeout(300_000);
  let t: TestRuntime;
  let caller: TestCaller;
  let readOnly: TestCaller;
  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt);
    readOnly = await makeCaller(t.rt, { tenantId: caller.tenantId, readOnly: true, permissions: [] });
    await makeScope(t.rt, caller.tenantId, [{ userId: caller.userId, role: 'manager' }]);
  });
  after(async () => t.close());

  it('random paths, queries, bodies, content types and keys on every route', async () => {
    const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 100000);
    const r = prng(seed);
    const routes = collectRoutes(t.rt);
    const perRoute = Number(process.env.FUZZ_PER_ROUTE ?? 25);
    const failures: string[] = [];
    for (const route of routes) {
      for (const p of route.paths) {
        for (let i = 0; i < perRoute; i++) {
          const path = p.replace(/\{[^}]+\}/g, () => encodeURIComponent(r.pick(NASTY_STRINGS)) || 'x') + randomQuery(r, route);
          const body = ['get', 'delete'].includes(route.method) && r.next() < 0.8 ? undefined : randomBody(r, route);
          const headers: Record<string, string> = {};
          const keyChoice = r.int(10);
          if (keyChoice < 7) headers.Authorization = `Bearer ${caller.apiKey}`;
          else if (keyChoice < 9) headers.Authorization = `Bearer ${readOnly.apiKey}`;
          else headers.Authorization = r.pick(['Bearer x', 'Bearer', '', 'Basic Zm9vOmJhcg==']);
          if (body !== undefined) headers['Content-Type'] = r.pick(['application/json', 'application/json', 'application/json; charset=utf-8', 'text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin-99']);
          const res = await rawRequest(t.baseUrl, route.method.toUpperCase(), path.startsWith('/') ? path : `/${path}`, headers, body);
          const ok = res.status < 500 && (res.status === 204 || res.status === 302 || (res.body && typeof res.body === 'object'));
          const coded = res.status < 400 || (typeof res.body?.code === 'string' && typeof res.body?.requestId === 'string');
          if (!ok || !coded) failures.push(`${route.method.toUpperCase()} ${path} [${headers['Content-Type'] ?? '-'}] ${body?.slice(0, 80)} -> ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    assert.deepEqual(failures.slice(0, 10), [], `seed ${seed}: ${failures.length} bad answers`);
  });
});
