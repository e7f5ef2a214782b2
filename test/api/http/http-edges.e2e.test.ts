import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import net from 'node:net';
import { UploadTokens } from '../../../commands/artifacts/upload-tokens';
import { SIGNED_UPLOAD_PREFIX } from '../../../commands/artifacts/upload-commands';
import { SignedUrls } from '../../../src/http/signed-urls';
import { collectRoutes } from '../../../src/server';
import { TOKENS } from '../../../src/ports/tokens';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload } from '../../support/working-filings';

const UNSTORABLE = 'Text may not contain NUL (U+0000) characters or unpaired UTF-16 surrogates.';

interface RawAnswer {
  status: number;
  headers: Map<string, string>;
  body: any;
  /** The server closed the connection after answering. */
  closed: boolean;
}

/**
 * Writes `parts` on a fresh connection (a number is a pause in ms) and reads the one answer. Waits for the server
 * to close the connection when `untilClose`, otherwise only for the whole answer; fails after `withinMs`.
 */
function exchange(baseUrl: string, parts: (string | Buffer | number)[], o: { untilClose?: boolean; withinMs?: number } = {}): Promise<RawAnswer> {
  const { port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let raw = Buffer.alloc(0);
    let settled = false;
    const timer = setTimeout(() => finish(new Error(`no ${o.untilClose ? 'close' : 'answer'} within ${o.withinMs ?? 10_000} ms: ${raw.toString('latin1').slice(0, 300)}`)), o.withinMs ?? 10_000);
    const parse = (closed: boolean): RawAnswer | null => {
      // An interim 100 Continue comes before the answer.
      const text = raw.toString('utf8').replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return null;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers = new Map(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const body = text.slice(end + 4);
      if (Buffer.byteLength(body) < Number(headers.get('content-length') ?? 0)) return null;
      let parsed: unknown = body;
      try {
        parsed = body ? JSON.parse(body) : undefined;
      } catch {
        // Not JSON: the assertions on the code show it.
      }
      return { status: Number(statusLine.split(' ')[1]), headers, body: parsed, closed };
    };
    function finish(err: Error | null, answer?: RawAnswer) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (err) reject(err);
      else resolve(answer!);
    }
    socket.on('data', (d: Buffer) => {
      raw = Buffer.concat([raw, d]);
      const answer = !o.untilClose && parse(false);
      if (answer) finish(null, answer);
    });
    socket.on('close', () => {
      const answer = parse(true);
      finish(answer ? null : new Error(`closed without an answer: ${raw.toString('latin1').slice(0, 300)}`), answer ?? undefined);
    });
    socket.on('error', () => {
      /* a reset after the answer: 'close' follows and decides */
    });
    socket.on('connect', async () => {
      for (const p of parts) {
        if (typeof p === 'number') await new Promise((r) => setTimeout(r, p));
        else if (!socket.destroyed) socket.write(p);
      }
    });
  });
}

function assertCoded(a: RawAnswer, status: number, code: string): void {
  assert.equal(a.status, status, JSON.stringify(a.body));
  assert.equal(a.body?.code, code);
  assert.equal(typeof a.body.error, 'string');
  assert.ok(a.headers.get('x-request-id'), 'X-Request-Id');
  assert.equal(a.body.requestId, a.headers.get('x-request-id'));
  assert.match(a.headers.get('content-type') ?? '', /^application\/json/);
}

describe('HTTP edges: coded JSON at the edges of the server, and input hygiene', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  let scope: string;
  let filingId: string;
  before(async () => {
    // Short timeouts, so a stalled request is cut within the test's time.
    t = await startTestRuntime({ httpBodyIdleTimeoutMs: 500, httpHeadersTimeoutMs: 1000 });
    caller = await makeCaller(t.rt);
    scope = await makeScope(t.rt, caller.tenantId, [{ userId: caller.userId, role: 'editor' }]);
    const l = await seedListings(t.rt, scope);
    const created = await client(t.baseUrl, caller.apiKey).post('/managed-filings', filingBody(scope, l));
    assert.equal(created.status, 201, created.text);
    filingId = created.body.id;
  });
  after(async () => t.close());
  const api = () => client(t.baseUrl, caller.apiKey);
  const head = (lines: string[]) => `${lines.join('\r\n')}\r\n\r\n`;

  describe('timeouts', () => {
    it('rule: a request body that stops arriving is a coded 408 with X-Request-Id, then the connection is closed', async () => {
      const a = await exchange(
        t.baseUrl,
        [head(['POST /api/v2/managed-filings HTTP/1.1', 'Host: x', `Authorization: Bearer ${caller.apiKey}`, 'Content-Type: application/json', 'Content-Length: 100', 'X-Request-Id: stalled-body-1']), '{"sco'],
        { untilClose: true, withinMs: 5000 },
      );
      assertCoded(a, 408, 'request_timeout');
      // The id is the one the app gave the request (here the caller's own).
      assert.equal(a.body.requestId, 'stalled-body-1');
      assert.equal(a.closed, true);
    });

    it('rule: a body still arriving, slowly but without a pause as long as the idle bound, is read and served', async () => {
      const body = JSON.stringify({ body: 'slow but steady' });
      const a = await exchange(t.baseUrl, [
        head([`POST /api/v2/managed-filings/${filingId}/comments HTTP/1.1`, 'Host: x', `Authorization: Bearer ${caller.apiKey}`, 'Content-Type: application/json', `Content-Length: ${body.length}`]),
        ...[...body].flatMap((ch, i) => (i % 5 === 0 ? [100, ch] : [ch])),
      ]);
      assert.equal(a.status, 201, JSON.stringify(a.body));
    });

    it('rule: headers that stop arriving are a coded 408', async () => {
      const a = await exchange(t.baseUrl, ['GET /api/v2/users/me HTTP/1.1\r\nHost: x\r\n'], { untilClose: true, withinMs: 5000 });
      assertCoded(a, 408, 'request_timeout');
    });
  });

  describe('framing, expectations and duplicate credentials', () => {
    it('rule: a body with broken chunk framing is a coded 400 (not a closed connection)', async () => {
      const a = await exchange(
        t.baseUrl,
        [head(['POST /api/v2/managed-filings HTTP/1.1', 'Host: x', `Authorization: Bearer ${caller.apiKey}`, 'Content-Type: application/json', 'Transfer-Encoding: chunked', 'X-Request-Id: chunks-1']), 'zz\r\n{}\r\n0\r\n\r\n'],
        { untilClose: true },
      );
      assertCoded(a, 400, 'invalid_request');
      assert.equal(a.body.requestId, 'chunks-1');
    });

    it('rule: an Expect other than 100-continue is a coded 417 with X-Request-Id', async () => {
      const a = await exchange(t.baseUrl, [head(['GET /api/v2/users/me HTTP/1.1', 'Host: x', `Authorization: Bearer ${caller.apiKey}`, 'Expect: foo', 'X-Request-Id: expect-1'])]);
      assertCoded(a, 417, 'expectation_failed');
      assert.equal(a.body.requestId, 'expect-1');
      // Expect: 100-continue still works.
      const ok = await exchange(t.baseUrl, [head(['GET /api/v2/users/me HTTP/1.1', 'Host: x', `Authorization: Bearer ${caller.apiKey}`, 'Expect: 100-continue'])]);
      assert.equal(ok.status, 200);
    });

    it('rule: two Authorization headers are a coded 400, in either order (valid then invalid, invalid then valid)', async () => {
      const valid = `Authorization: Bearer ${caller.apiKey}`;
      const invalid = 'Authorization: Bearer ifrs_not_a_key';
      for (const pair of [[valid, invalid], [invalid, valid], [valid, valid]]) {
        const a = await exchange(t.baseUrl, [head(['GET /api/v2/users/me HTTP/1.1', 'Host: x', ...pair])]);
        assertCoded(a, 400, 'invalid_request');
        assert.deepEqual(a.body.details, [{ location: 'header', path: ['authorization'], code: 'invalid_value', message: 'The Authorization header may be given only once.' }]);
      }
      const one = await exchange(t.baseUrl, [head(['GET /api/v2/users/me HTTP/1.1', 'Host: x', valid])]);
      assert.equal(one.status, 200);
      // Not hidden behind many headers: Node kept only the first 2,000 and dropped the rest unseen.
      const junk = Array.from({ length: 2500 }, (_, i) => `X-Junk-${i}: 1`);
      const buried = await exchange(t.baseUrl, [head(['GET /api/v2/users/me HTTP/1.1', 'Host: x', valid, ...junk, invalid])]);
      assertCoded(buried, 400, 'invalid_request');
    });

    it('rule: an HTTP/1.1 request without Host and a CONNECT get coded 400s (Node answered an empty 400 and a closed connection)', async () => {
      const noHost = await exchange(t.baseUrl, [head(['GET /api/v2/users/me HTTP/1.1', `Authorization: Bearer ${caller.apiKey}`, 'X-Request-Id: no-host-1'])]);
      assertCoded(noHost, 400, 'invalid_request');
      assert.equal(noHost.body.requestId, 'no-host-1');
      assert.deepEqual(noHost.body.details.map((d: { location: string; path: string[] }) => [d.location, d.path]), [['header', ['host']]]);
      const connect = await exchange(t.baseUrl, [head(['CONNECT example.com:443 HTTP/1.1', 'Host: example.com:443', 'X-Request-Id: connect-1'])], { untilClose: true });
      assertCoded(connect, 400, 'invalid_request');
      assert.equal(connect.body.requestId, 'connect-1');
    });
  });

  describe('methods', () => {
    it('rule: an undeclared method on a known path is a coded 405 whose Allow lists the declared methods', async () => {
      const cases: [string, string, string][] = [
        ['TRACE', '/api/v2/managed-filings', 'GET, HEAD, POST'],
        ['DELETE', '/api/v2/users/me', 'GET, HEAD'],
        ['PUT', `/api/v2/managed-filings/${filingId}`, 'GET, HEAD, PATCH'],
        ['OPTIONS', `/api/v2/managed-filings/${filingId}/comments/${crypto.randomUUID()}`, 'DELETE, PATCH'],
        ['POST', '/api/v2/openapi.json', 'GET, HEAD'],
        ['POST', '/healthz', 'GET, HEAD'],
      ];
      for (const [method, path, allow] of cases) {
        const a = await exchange(t.baseUrl, [head([`${method} ${path} HTTP/1.1`, 'Host: x', `Authorization: Bearer ${caller.apiKey}`, 'Content-Length: 0'])]);
        assertCoded(a, 405, 'method_not_allowed');
        assert.equal(a.headers.get('allow'), allow, `${method} ${path}`);
      }
    });

    it('rule: an unknown path stays a coded 404, and the key is checked before either', async () => {
      const unknown = await exchange(t.baseUrl, [head(['TRACE /api/v2/no/such/path HTTP/1.1', 'Host: x', `Authorization: Bearer ${caller.apiKey}`])]);
      assertCoded(unknown, 404, 'not_found');
      const noKey = await exchange(t.baseUrl, [head(['TRACE /api/v2/managed-filings HTTP/1.1', 'Host: x'])]);
      assertCoded(noKey, 401, 'unauthenticated');
    });
  });

  describe('header limit', () => {
    const carriers = (n: number, value: (i: number) => string) => Array.from({ length: n }, (_, i) => `carrier=${encodeURIComponent(value(i))}`).join('&');

    it('rule: a GET with 100 carrier values of 500 characters is served (not 431), every value read', async () => {
      const ascii = (i: number) => `carrier_${String(i).padStart(3, '0')}`.padEnd(500, 'x');
      const r = await api().get(`/insurance/filings?${carriers(100, ascii)}`);
      // Served: the handler read the values and found no catalog identifier for them (the contract's 404).
      assert.equal(r.status, 404, r.text);
      assert.equal(r.body.code, 'not_found');
      // The same with every character a percent-encoded three-byte one (~450 KB of request line).
      const wide = await api().get(`/insurance/filings?${carriers(100, () => '€'.repeat(500))}`);
      assert.equal(wide.status, 404, wide.text);
      // Each pair is read (querystring's silent 1,000-pair cap is gone): the 101st value is refused by the bound.
      const over = await api().get(`/insurance/filings?${carriers(101, ascii)}`);
      assert.equal(over.status, 400);
      assert.deepEqual(over.body.details.map((d: { location: string; path: string[] }) => [d.location, d.path]), [['query', ['carrier']]]);
    });

    it('rule: a request line and headers beyond the limit are a coded 431', async () => {
      const a = await exchange(t.baseUrl, [head(['GET /api/v2/users/me HTTP/1.1', 'Host: x', `Authorization: Bearer ${caller.apiKey}`, `X-Pad: ${'p'.repeat(1024 * 1024)}`])], { untilClose: true });
      assertCoded(a, 431, 'request_header_too_large');
    });
  });

  describe('input hygiene', () => {
    it('rule: every route taking a JSON body refuses an unpaired surrogate (value or key) as a coded 400 at its body path', async () => {
      const withBody = collectRoutes(t.rt).filter((r) => r.body && !r.rawBody);
      assert.ok(withBody.length >= 10, String(withBody.length));
      for (const route of withBody) {
        const path = route.paths[0].replace(/\{[^}]+\}/g, () => crypto.randomUUID());
        for (const [body, at] of [
          [{ note: 'x\ud800y' }, ['note']],
          [{ list: [{ name: '\udfff' }] }, ['list', '0', 'name']],
          [{ ['k\udc00']: 1 }, ['k\\udc00']],
        ] as const) {
          const r = await api().call(route.method.toUpperCase(), path, body);
          assert.equal(r.status, 400, `${route.method} ${path}: ${r.text}`);
          assert.equal(r.body.code, 'invalid_request');
          assert.deepEqual(r.body.details, [{ location: 'body', path: at, code: 'invalid_value', message: UNSTORABLE }], `${route.method} ${path}`);
        }
      }
    });

    it('rule: lone surrogates in real writes (filing, comment, item, patches) are a coded 400 and change nothing', async () => {
      const l = await seedListings(t.rt, scope);
      const created = await api().post('/managed-filings', filingBody(scope, l, { description: 'x\ud800y' }));
      assert.equal(created.status, 400, created.text);
      assert.deepEqual(created.body.details[0].path, ['description']);
      const comment = await api().post(`/managed-filings/${filingId}/comments`, { body: 'fine' });
      const commentsBefore = (await api().get(`/managed-filings/${filingId}/comments`)).body.comments;
      const filingBefore = (await api().get(`/managed-filings/${filingId}`)).body;
      assert.equal(comment.status, 201, comment.text);
      const { artifact } = await upload(t.baseUrl, caller.apiKey, scope, 'item content');
      const item = await api().post(`/managed-filings/${filingId}/items`, { artifactId: artifact.id });
      assert.equal(item.status, 201, item.text);
      const writes: [string, string, Record<string, unknown>, string][] = [
        ['POST', `/managed-filings/${filingId}/comments`, { body: 'x\ud800y' }, 'body'],
        ['PATCH', `/managed-filings/${filingId}/comments/${comment.body.id}`, { body: '\udc00' }, 'body'],
        ['PATCH', `/managed-filings/${filingId}`, { description: 'a\ud800' }, 'description'],
        ['PATCH', `/managed-filings/${filingId}/items/${item.body.id}`, { context: '\ud800' }, 'context'],
        ['POST', `/managed-filings/${filingId}/items`, { artifactId: artifact.id, context: '\ud800' }, 'context'],
      ];
      for (const [method, path, body, field] of writes) {
        const r = await api().call(method, path, body);
        assert.equal(r.status, 400, `${method} ${path}: ${r.text}`);
        assert.deepEqual(r.body.details[0], { location: 'body', path: [field], code: 'invalid_value', message: UNSTORABLE });
      }
      assert.deepEqual((await api().get(`/managed-filings/${filingId}/comments`)).body.comments, commentsBefore);
      assert.deepEqual((await api().get(`/managed-filings/${filingId}`)).body, filingBefore);
      const items = await api().get(`/managed-filings/${filingId}/items`);
      assert.deepEqual(items.body.items.map((i: { id: string; context: unknown }) => [i.id, i.context]), [[item.body.id, null]]);
    });

    it('rule: the path, the query and the headers are checked too: coded 4xx, never a 500', async () => {
      const path = await api().get('/managed-filings/%ED%A0%80');
      assert.equal(path.status, 400);
      assert.equal(path.body.details[0].location, 'path');
      const nulPath = await api().patch(`/managed-filings/${filingId}/comments/%00`, { body: 'x' });
      assert.equal(nulPath.status, 400);
      assert.equal(nulPath.body.details[0].location, 'path');
      for (const q of ['cursor=%ED%A0%80', 'cursor=%00', 'cursor=ok&limit=%E0%A4']) {
        const r = await api().get(`/managed-filings?${q}`);
        assert.equal(r.status, 400, q);
        assert.equal(r.body.code, 'invalid_request', q);
        assert.equal(r.body.details[0].location, 'query', q);
      }
      assert.deepEqual((await api().get('/managed-filings?limit=%E0%A4')).body.details[0].path, ['limit']);
      // Header values are bytes (Node reads them as latin1, so no surrogate can form): the WTF-8 bytes of U+D800
      // make an unknown key and an unusable request id, and a NUL byte is refused by the HTTP parser.
      const wtf8 = Buffer.from([0xed, 0xa0, 0x80]);
      const badKey = await exchange(t.baseUrl, [Buffer.concat([Buffer.from('GET /api/v2/users/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ifrs_'), wtf8, Buffer.from('\r\n\r\n')])]);
      assertCoded(badKey, 401, 'unauthenticated');
      const badId = await exchange(t.baseUrl, [Buffer.concat([Buffer.from(`GET /api/v2/users/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${caller.apiKey}\r\nX-Request-Id: a`), wtf8, Buffer.from('\r\n\r\n')])]);
      assert.equal(badId.status, 200);
      assert.match(badId.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
      const nul = await exchange(t.baseUrl, [`GET /api/v2/users/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${caller.apiKey}\r\nX-Note: a\u0000b\r\n\r\n`], { untilClose: true });
      assertCoded(nul, 400, 'invalid_request');
    });
  });

  describe('uploads', () => {
    /** A token as the service issues them, for a name the upload's start now refuses (as a token of an earlier release could carry). */
    async function putWithToken(grant: { name: string; mimeType: string }, content: string): Promise<string> {
      const now = Date.now();
      const token = new UploadTokens(t.rt.container.get<Buffer>(TOKENS.Secret)).issue({
        uploadId: crypto.randomUUID(),
        artifactId: crypto.randomUUID(),
        existing: false,
        scopeId: scope.slice(3),
        tenantId: caller.tenantId,
        userId: caller.userId,
        size: Buffer.byteLength(content),
        exp: Math.floor(now / 1000) + 600,
        ...grant,
      });
      const signed = t.rt.container.get(SignedUrls).sign('PUT', SIGNED_UPLOAD_PREFIX + token, 600, now);
      const put = await fetch(new URL(t.baseUrl).origin + signed.url, { method: 'PUT', body: content });
      assert.equal(put.status, 200, await put.text());
      return token;
    }

    async function beginAndPut(name: string, content: string): Promise<string> {
      const begin = await api().post('/files/uploads', { scope, name, mimeType: 'text/plain', size: Buffer.byteLength(content) });
      assert.equal(begin.status, 201, begin.text);
      assert.equal((await fetch(begin.body.uploadUrl, { method: 'PUT', body: content })).status, 200);
      return begin.body.uploadToken;
    }

    async function versionsOf(artifactId: string): Promise<number> {
      const events = await t.rt.store.readStream(`artifact-${artifactId}`);
      return events.filter((e) => e.type === 'ArtifactVersionAdded').length;
    }

    it('rule: the upload name is checked when the upload starts (NUL or unpaired surrogate: coded 400 at body.name)', async () => {
      for (const name of ['\ud800.txt', 'a\u0000.txt']) {
        const r = await api().post('/files/uploads', { scope, name, mimeType: 'text/plain', size: 1 });
        assert.equal(r.status, 400, r.text);
        assert.deepEqual(r.body.details[0].path, ['name']);
      }
    });

    it('rule: completing [good, bad name] answers 200 with a per-file failure, and the good one is committed exactly once', async () => {
      const good = await beginAndPut('good.txt', 'good bytes');
      const bad = await putWithToken({ name: '\ud800.txt', mimeType: 'text/plain' }, 'bad bytes');
      const r = await api().post('/files/uploads/complete', { confirmations: [{ uploadToken: good }, { uploadToken: bad }] });
      assert.equal(r.status, 200, r.text);
      const [ok, failed] = r.body.results;
      assert.equal(ok.success, true);
      assert.equal(ok.artifact.currentVersion.versionNumber, 1);
      assert.equal(failed.success, false);
      assert.equal(failed.error.code, 'UPLOAD_NAME_INVALID');
      assert.equal(await versionsOf(ok.artifact.id), 1);
      const seen = await api().get(`/artifacts/${ok.artifact.id}`);
      assert.equal(seen.body.currentVersion.versionNumber, 1);
    });

    it('rule: an unexpected fault on one file is a per-file INTERNAL_ERROR inside the 200; the files before and after it are reported as committed', async () => {
      const first = await beginAndPut('first.txt', 'first');
      // Fault injection: a media type Postgres cannot store makes this file's append fail in the database.
      const faulty = await putWithToken({ name: 'fault.txt', mimeType: 'text/\ud800' }, 'faulty');
      const last = await beginAndPut('last.txt', 'last');
      const r = await api().post('/files/uploads/complete', { confirmations: [{ uploadToken: first }, { uploadToken: faulty }, { uploadToken: last }] });
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.body.results.map((x: { success: boolean; error: { code: string } | null }) => x.error?.code ?? x.success), [true, 'INTERNAL_ERROR', true]);
      for (const x of [r.body.results[0], r.body.results[2]]) assert.equal(await versionsOf(x.artifact.id), 1);
    });
  });
});
