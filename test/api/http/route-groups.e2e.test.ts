import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';

/**
 * Routes are matched within the group of their first path segment (src/http/app.ts). These answers were
 * recorded with every route in one router, in registration order: grouping must not change any of them
 * (trailing slashes, case, known paths with other methods, OPTIONS, HEAD, both path forms, a literal
 * segment next to a parameter, encoded and empty segments). Since issue 22 a known path with another method
 * is a 405 (README, Decisions) where the single router gave a 404: those rows changed, nothing else.
 */
const ID = '0b6a3c1e-5d2f-4c8a-9e7b-1f2a3b4c5d6e';
const CASES: [method: string, path: string, status: number, code?: string][] = [
  ['GET', '/users/me', 200],
  ['GET', '/users/me/', 200],
  ['GET', '/Users/me', 404, 'not_found'],
  ['GET', '/users//me', 404, 'not_found'],
  ['HEAD', '/users/me', 200],
  ['OPTIONS', '/users/me', 405, 'method_not_allowed'],
  ['OPTIONS', '/managed-filings', 405, 'method_not_allowed'],
  ['POST', '/users/me', 405, 'method_not_allowed'],
  ['POST', '/managed-filings', 400, 'invalid_request'],
  ['POST', '/managed-filings/', 400, 'invalid_request'],
  ['POST', '/insurance/managed-filings', 400, 'invalid_request'],
  ['PUT', '/managed-filings', 405, 'method_not_allowed'],
  ['GET', '/managed-filings', 200],
  ['GET', '/insurance/managed-filings', 200],
  ['GET', '/insurance/managed-filings/field-options?field=subToiCode&dependsOn=04.0', 200],
  ['GET', '/managed-filings/field-options', 404, 'not_found'],
  ['GET', `/managed-filings/${ID}`, 404, 'not_found'],
  ['GET', '/managed-filings/not-a-uuid', 404, 'not_found'],
  ['PATCH', `/managed-filings/${ID}/items/${ID}`, 404, 'not_found'],
  ['DELETE', `/managed-filings/${ID}/comments/${ID}`, 404, 'not_found'],
  ['GET', `/managed-filings/${ID}/events`, 404, 'not_found'],
  ['GET', '/insurance/filings', 200],
  ['HEAD', '/filings', 200],
  ['GET', '/insurance/carriers', 200],
  ['GET', '/openapi.json', 200],
  ['GET', '/managed%2Dfilings', 404, 'not_found'],
  ['GET', '/', 404, 'not_found'],
  ['GET', '/nothing/here', 404, 'not_found'],
  ['GET', `/signed/uploads/${ID}`, 405, 'method_not_allowed'],
];

describe('HTTP routing: routes grouped by their first path segment', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt);
  });
  after(async () => t.close());

  it('rule: every answer is the one a single router gave (status and error code)', async () => {
    const got: typeof CASES = [];
    for (const [method, path] of CASES) {
      const r = await client(t.baseUrl, caller.apiKey).call(method, path, method === 'POST' || method === 'PATCH' ? {} : undefined);
      const code = (r.body as { code?: string } | undefined)?.code;
      got.push(code ? [method, path, r.status, code] : [method, path, r.status]);
    }
    assert.deepEqual(got, CASES);
  });
});
