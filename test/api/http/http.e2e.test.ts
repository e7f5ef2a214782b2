import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { alteredEnd } from '../../support/altered-end';

describe('HTTP platform: identity, authentication and the error model', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt, { name: 'Ana Analyst', email: 'ana@example.com' });
  });
  after(async () => t.close());

  const assertErrorShape = (body: any, code: string) => {
    assert.equal(body.code, code);
    assert.equal(typeof body.error, 'string');
    assert.ok(body.requestId && body.requestId.length <= 128);
  };

  it('GET /users/me answers {id, tenantId, name, email} with Cache-Control: no-store', async () => {
    const r = await client(t.baseUrl, caller.apiKey).get('/users/me');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, { id: caller.userId, tenantId: caller.tenantId, name: 'Ana Analyst', email: 'ana@example.com' });
    assert.equal(r.headers.get('cache-control'), 'no-store');
  });

  it('answers JSON as application/json; charset=utf-8 with the byte length of non-ASCII text, and HEAD without a body', async () => {
    const u = await makeCaller(t.rt, { tenantId: caller.tenantId, name: 'Zoë Ünderwriter ✓', email: 'zoe@example.com' });
    const r = await client(t.baseUrl, u.apiKey).get('/users/me');
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(Number(r.headers.get('content-length')), Buffer.byteLength(r.text));
    assert.equal(r.body.name, 'Zoë Ünderwriter ✓');
    const head = await client(t.baseUrl, u.apiKey).call('HEAD', '/users/me');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('content-type'), 'application/json; charset=utf-8');
  });

  it('rule: every response carries X-Request-Id and errors repeat it in requestId', async () => {
    const r = await client(t.baseUrl).get('/users/me', { 'X-Request-Id': 'trace-123' });
    assert.equal(r.headers.get('x-request-id'), 'trace-123');
    assert.equal(r.body.requestId, 'trace-123');
    const ok = await client(t.baseUrl, caller.apiKey).get('/users/me');
    assert.ok(ok.headers.get('x-request-id'));
  });

  it('rule: missing, malformed, unknown or revoked keys are 401 unauthenticated', async () => {
    for (const auth of [undefined, 'Basic abc', 'Bearer', 'Bearer nonsense', `Bearer ${alteredEnd(caller.apiKey)}`]) {
      const r = await client(t.baseUrl).get('/users/me', auth ? { Authorization: auth } : {});
      assert.equal(r.status, 401, String(auth));
      assertErrorShape(r.body, 'unauthenticated');
      // The HTTP bearer scheme (RFC 6750, section 3): a 401 names its challenge.
      assert.match(r.headers.get('www-authenticate') ?? '', /^Bearer\b/, String(auth));
    }
    const other = await makeCaller(t.rt, { tenantId: caller.tenantId });
    assert.equal((await client(t.baseUrl, other.apiKey).get('/users/me')).status, 200);
    await t.rt.container.get(IdentityCommands).revokeKey(other.keyId, { actor: 'test' });
    // Revocation is honoured within the authentication cache's lifetime (2 s).
    const deadline = Date.now() + 5000;
    let status = 200;
    while (Date.now() < deadline && status === 200) {
      status = (await client(t.baseUrl, other.apiKey).get('/users/me')).status;
      if (status === 200) await new Promise((r) => setTimeout(r, 200));
    }
    assert.equal(status, 401);
  });

  it('rule: authentication is checked before validation (a bad key on a bad request is a 401)', async () => {
    const r = await client(t.baseUrl, 'ifrs_bad').get('/users/me?unknown=1');
    assert.equal(r.status, 401);
  });

  it('rule: /users/me rejects any query parameter with invalid_request / unknown_field details', async () => {
    const r = await client(t.baseUrl, caller.apiKey).get('/users/me?verbose=true');
    assert.equal(r.status, 400);
    assertErrorShape(r.body, 'invalid_request');
    assert.deepEqual(r.body.details, [{ location: 'query', path: ['verbose'], code: 'unknown_field', message: 'Unknown parameter "verbose".' }]);
  });

  it('rule: unknown routes give a JSON 404 not_found', async () => {
    const r = await client(t.baseUrl, caller.apiKey).get('/no/such/route');
    assert.equal(r.status, 404);
    assertErrorShape(r.body, 'not_found');
    const outside = await client(t.baseUrl).get('/../../nowhere');
    assert.equal(outside.status, 404);
    assert.equal(outside.body.code, 'not_found');
  });

  it('serves the OpenAPI 3.1 document, which lists /users/me', async () => {
    const r = await client(t.baseUrl).get('/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.body.openapi, '3.1.0');
    assert.equal(r.body.info.version, '2.0.0');
    assert.ok(r.body.paths['/users/me'].get);
  });

  it('health, readiness and metrics answer outside /api/v2', async () => {
    const root = t.baseUrl.replace(/\/api\/v2$/, '');
    assert.equal((await fetch(`${root}/healthz`)).status, 200);
    const ready = await fetch(`${root}/readyz`);
    assert.equal(ready.status, 200);
    const body = (await ready.json()) as { projections: { name: string }[] };
    assert.ok(body.projections.some((p) => p.name === 'identity'));
    const metrics = await (await fetch(`${root}/metrics`)).text();
    assert.match(metrics, /http_request_duration_seconds_bucket/);
    assert.match(metrics, /ifrs_projection_lag\{projection="identity"\} 0/);
    assert.match(metrics, /ifrs_event_log_head \d+/);
  });
});
