import assert from 'node:assert/strict';
import http from 'node:http';
import zlib from 'node:zlib';
import pino from 'pino';
import { loadConfig } from '../../../src/config';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { aContentFile, aFiling, importFiling, type ImportedFiling } from '../../support/catalog-filing-mother';

interface RawAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  bytes: Buffer;
}

/** node:http, not fetch: fetch decodes a content coding by itself and hides what came over the wire. */
function raw(baseUrl: string, method: string, path: string, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(path, baseUrl), { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('HTTP manners: access log, compression, validators, CORS', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  let filing: ImportedFiling;
  const lines: Record<string, unknown>[] = [];
  const auth = () => ({ Authorization: `Bearer ${caller.apiKey}` });

  before(async () => {
    const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
    t = await startTestRuntime({}, undefined, log);
    caller = await makeCaller(t.rt);
    filing = await importFiling(t.rt, aFiling(), [aContentFile(Buffer.from('0123456789abcdefghij'), { name: 'data.bin', mimeType: 'application/octet-stream', role: 'other' })]);
    for (let i = 0; i < 8; i++) await importFiling(t.rt, aFiling(), []);
    await t.rt.engine.catchUp();
  });
  after(async () => t.close());

  describe('access log', () => {
    it('rule: one access-log line per request at info with method, route, status, duration, request id and tenant; never the key', async () => {
      const requestId = 'access-log-probe-1';
      const r = await client(t.baseUrl, caller.apiKey).get(`/insurance/filings/${filing.filing.id}`, { 'X-Request-Id': requestId });
      assert.equal(r.status, 200);
      await new Promise((resolve) => setImmediate(resolve));
      const mine = lines.filter((l) => l.requestId === requestId);
      assert.equal(mine.length, 1, JSON.stringify(mine));
      const line = mine[0];
      assert.equal(line.level, 30); // info
      assert.equal(line.msg, 'request');
      assert.equal(line.method, 'GET');
      assert.equal(line.route, '/api/v2/insurance/filings/:filingId');
      assert.equal(line.status, 200);
      assert.equal(typeof line.durationMs, 'number');
      assert.equal(line.tenantId, caller.tenantId);
      const text = JSON.stringify(lines);
      assert.ok(!text.includes(caller.apiKey), 'the API key is never logged');
      assert.ok(!/authorization/i.test(text), 'no Authorization header is logged');
    });

    it('rule: a refused request is logged too (401 at info, without a tenant)', async () => {
      const requestId = 'access-log-probe-2';
      const r = await client(t.baseUrl, 'ifrs_not_a_key').get('/users/me', { 'X-Request-Id': requestId });
      assert.equal(r.status, 401);
      await new Promise((resolve) => setImmediate(resolve));
      const mine = lines.filter((l) => l.requestId === requestId);
      assert.equal(mine.length, 1);
      assert.equal(mine[0].status, 401);
      assert.equal(mine[0].level, 30);
      assert.equal(mine[0].tenantId, null);
      assert.ok(!JSON.stringify(lines).includes('ifrs_not_a_key'));
    });
  });

  describe('compression', () => {
    it('rule: a JSON answer above 1 KB is compressed with br or gzip as the client asks', async () => {
      const plain = await raw(t.baseUrl, 'GET', '/api/v2/insurance/filings?limit=9', auth());
      assert.equal(plain.headers['content-encoding'], undefined);
      assert.ok(plain.bytes.length > 1024, `the list is ${plain.bytes.length} bytes`);
      const expected = JSON.parse(plain.bytes.toString('utf8')) as unknown;

      const br = await raw(t.baseUrl, 'GET', '/api/v2/insurance/filings?limit=9', { ...auth(), 'Accept-Encoding': 'gzip, br' });
      assert.equal(br.headers['content-encoding'], 'br');
      assert.match(String(br.headers.vary), /Accept-Encoding/i);
      assert.ok(br.bytes.length < plain.bytes.length);
      assert.deepEqual(JSON.parse(zlib.brotliDecompressSync(br.bytes).toString('utf8')), expected);

      const gzip = await raw(t.baseUrl, 'GET', '/api/v2/insurance/filings?limit=9', { ...auth(), 'Accept-Encoding': 'gzip' });
      assert.equal(gzip.headers['content-encoding'], 'gzip');
      assert.deepEqual(JSON.parse(zlib.gunzipSync(gzip.bytes).toString('utf8')), expected);
    });

    it('rule: an answer below the threshold goes out as it is, with its Content-Length', async () => {
      const r = await raw(t.baseUrl, 'GET', '/api/v2/users/me', { ...auth(), 'Accept-Encoding': 'gzip, br' });
      assert.equal(r.status, 200);
      assert.ok(r.bytes.length < 1024);
      assert.equal(r.headers['content-encoding'], undefined);
      assert.equal(Number(r.headers['content-length']), r.bytes.length);
    });

    it('rule: a signed download is never content-coded (byte ranges and Content-Length stay exact)', async () => {
      const d = await client(t.baseUrl, caller.apiKey).get(`/files/${filing.files[0].fileId}/download`);
      const url = new URL(d.headers.get('location')!);
      const r = await raw(t.baseUrl, 'GET', url.pathname + url.search, { 'Accept-Encoding': 'gzip, br' });
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], undefined);
      assert.equal(r.bytes.toString('utf8'), '0123456789abcdefghij');
    });
  });

  describe('validators', () => {
    it('rule: a record GET carries an ETag and answers 304 without a body to a matching If-None-Match', async () => {
      const path = `/api/v2/insurance/filings/${filing.filing.id}`;
      const first = await raw(t.baseUrl, 'GET', path, auth());
      assert.equal(first.status, 200);
      const tag = first.headers.etag!;
      assert.match(tag, /^W\/".+"$/);
      assert.ok(!/no-store/.test(String(first.headers['cache-control'])), 'a client may keep the record to revalidate it');
      const again = await raw(t.baseUrl, 'GET', path, { ...auth(), 'If-None-Match': tag });
      assert.equal(again.status, 304);
      assert.equal(again.bytes.length, 0);
      assert.equal(again.headers.etag, tag);
      assert.ok(again.headers['x-request-id']);
      const stale = await raw(t.baseUrl, 'GET', path, { ...auth(), 'If-None-Match': 'W/"something-else"' });
      assert.equal(stale.status, 200);
      const other = await raw(t.baseUrl, 'GET', `/api/v2/insurance/filings/${filing.filing.id.replace(/.$/, (c) => (c === '0' ? '1' : '0'))}`, { ...auth(), 'If-None-Match': tag });
      assert.equal(other.status, 404, 'a validator never answers for another record');
    });

    it('rule: the key is checked before the validator (a matching If-None-Match without the key is 401)', async () => {
      const path = `/api/v2/insurance/filings/${filing.filing.id}`;
      const tag = (await raw(t.baseUrl, 'GET', path, auth())).headers.etag!;
      assert.equal((await raw(t.baseUrl, 'GET', path, { 'If-None-Match': tag })).status, 401);
    });

    it('rule: lists carry no ETag (they change with any write and carry cursors)', async () => {
      const r = await raw(t.baseUrl, 'GET', '/api/v2/insurance/filings?limit=2', auth());
      assert.equal(r.status, 200);
      assert.equal(r.headers.etag, undefined);
    });

    it('rule: a download addressed by content hash has ETag = the SHA-256 and Cache-Control private, max-age, immutable; If-None-Match gives 304', async () => {
      const d = await client(t.baseUrl, caller.apiKey).get(`/files/${filing.files[0].fileId}/download`);
      const url = new URL(d.headers.get('location')!);
      const r = await raw(t.baseUrl, 'GET', url.pathname + url.search);
      assert.equal(r.status, 200);
      const sha = (await import('node:crypto')).createHash('sha256').update('0123456789abcdefghij').digest('hex');
      assert.equal(r.headers.etag, `"${sha}"`);
      const cc = /^private, max-age=(\d+), immutable$/.exec(String(r.headers['cache-control']));
      assert.ok(cc, String(r.headers['cache-control']));
      const expires = Number(url.searchParams.get('expires'));
      assert.ok(Number(cc[1]) > 0 && Number(cc[1]) <= expires - Math.floor(Date.now() / 1000) + 1, 'cacheable no longer than the address is valid');
      const again = await raw(t.baseUrl, 'GET', url.pathname + url.search, { 'If-None-Match': `"${sha}"` });
      assert.equal(again.status, 304);
      assert.equal(again.bytes.length, 0);
      // A different first character of the signature (replacing it by a fixed one left it unchanged 1 time in 64).
      const altered = await raw(t.baseUrl, 'GET', url.pathname + url.search.replace(/signature=(.)/, (_m, c: string) => `signature=${c === 'A' ? 'B' : 'A'}`), { 'If-None-Match': `"${sha}"` });
      assert.equal(altered.status, 403, 'an altered address is refused before any validator is looked at');
    });

    it('rule: the OpenAPI document shows the ETag and the 304 of record GETs and signed downloads', async () => {
      const doc = (await client(t.baseUrl).get('/openapi.json')).body;
      const record = doc.paths['/insurance/filings/{filingId}'].get.responses;
      assert.ok(record['304']);
      assert.ok(record['200'].headers.ETag);
      assert.ok(doc.paths['/signed/files/{fileId}/{version}/{grant}'].get.responses['304']);
      assert.equal(doc.paths['/insurance/filings'].get.responses['304'], undefined);
    });
  });

  describe('CORS', () => {
    it('rule: CORS is off by default: a preflight is not answered (401 without the key) and no answer allows an origin', async () => {
      const pre = await raw(t.baseUrl, 'OPTIONS', '/api/v2/users/me', { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' });
      assert.equal(pre.status, 401);
      assert.equal(pre.headers['access-control-allow-origin'], undefined);
      const get = await raw(t.baseUrl, 'GET', '/api/v2/users/me', { ...auth(), Origin: 'https://app.example.com' });
      assert.equal(get.status, 200);
      assert.equal(get.headers['access-control-allow-origin'], undefined);
    });
  });
});

describe('HTTP manners: CORS with an allow-list (IFRS_CORS_ORIGINS)', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  const allowed = 'https://app.example.com';

  before(async () => {
    t = await startTestRuntime({ corsOrigins: loadConfig({ IFRS_CORS_ORIGINS: `${allowed}, http://localhost:5173` }).corsOrigins });
    caller = await makeCaller(t.rt);
  });
  after(async () => t.close());

  it('rule: a preflight from an allowed origin is answered 204 without the key, naming the origin, methods and headers', async () => {
    const pre = await raw(t.baseUrl, 'OPTIONS', '/api/v2/managed-filings', { Origin: allowed, 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization, content-type' });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], allowed);
    assert.match(String(pre.headers['access-control-allow-methods']), /POST/);
    assert.match(String(pre.headers['access-control-allow-headers']), /Authorization/);
    assert.match(String(pre.headers['access-control-allow-headers']), /Content-Type/);
    assert.match(String(pre.headers.vary), /Origin/);
  });

  it('rule: an answer to an allowed origin allows it and exposes X-Request-Id; the key is still required', async () => {
    const ok = await raw(t.baseUrl, 'GET', '/api/v2/users/me', { Authorization: `Bearer ${caller.apiKey}`, Origin: allowed });
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['access-control-allow-origin'], allowed);
    assert.match(String(ok.headers['access-control-expose-headers']), /X-Request-Id/);
    const noKey = await raw(t.baseUrl, 'GET', '/api/v2/users/me', { Origin: allowed });
    assert.equal(noKey.status, 401);
  });

  it('rule: another origin gets no CORS headers and its preflight is not answered', async () => {
    const pre = await raw(t.baseUrl, 'OPTIONS', '/api/v2/users/me', { Origin: 'https://evil.example.net', 'Access-Control-Request-Method': 'GET' });
    assert.equal(pre.status, 401);
    assert.equal(pre.headers['access-control-allow-origin'], undefined);
    const get = await raw(t.baseUrl, 'GET', '/api/v2/users/me', { Authorization: `Bearer ${caller.apiKey}`, Origin: 'https://evil.example.net' });
    assert.equal(get.status, 200);
    assert.equal(get.headers['access-control-allow-origin'], undefined);
  });
});
