import assert from 'node:assert/strict';
import { parseWrkOutput, rotationFile, wrkScript } from '../../bench/support/wrk';

/** wrk 4.1's stdout with the bench script's report line, as printed against a route answering 404 to some requests. */
const STDOUT = `Running 3s test @ http://127.0.0.1:36281/api/v2/users/me
  1 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     4.19ms    7.97ms  60.78ms   89.98%
    Req/Sec     9.73k     6.91k   20.83k    70.00%
  Latency Distribution
     50%    1.10ms
     75%    2.64ms
     90%   12.23ms
     99%   42.62ms
  29364 requests in 3.02s, 4.83MB read
  Non-2xx or 3xx responses: 12
Requests/sec:   9723.18
Transfer/sec:      1.60MB
wrk-json {"requests":29364,"duration":3020000,"bytes":5050608,"errors":{"connect":0,"read":2,"write":1,"status":12,"timeout":3},"non2xx":15,"latency":{"mean":4185.506,"p50":1096,"p99":42615,"max":60782}}
`;

describe('bench: wrk output', () => {
  it('takes the figures from the script report line, latencies in ms with microsecond precision', () => {
    const r = parseWrkOutput(STDOUT);
    assert.equal(r.requests, 29364);
    assert.equal(r.rps, 29364 / 3.02);
    assert.equal(r.p50, 1.096);
    assert.equal(r.p99, 42.615);
    assert.equal(r.mean, 4.186);
    assert.equal(r.bytes, 5050608);
  });

  it('counts non-2xx answers from the script, and errors without wrk status count (which non-2xx holds)', () => {
    const r = parseWrkOutput(STDOUT);
    assert.equal(r.non2xx, 15);
    assert.equal(r.errors, 2 + 1 + 3);
  });

  it('refuses output without the report line (the script did not run to done())', () => {
    assert.throws(() => parseWrkOutput(STDOUT.split('\n').filter((l) => !l.startsWith('wrk-json')).join('\n')), /no report/);
  });

  it('a run with no requests has a rate of 0', () => {
    const r = parseWrkOutput('wrk-json {"requests":0,"duration":0,"bytes":0,"errors":{"connect":16,"read":0,"write":0,"status":0,"timeout":0},"non2xx":0,"latency":{"mean":0,"p50":0,"p99":0,"max":0}}\n');
    assert.equal(r.rps, 0);
    assert.equal(r.errors, 16);
  });
});

describe('bench: wrk requests', () => {
  it('a rotation file has one request a line, the base path in front, a tab before the body', () => {
    const text = rotationFile('/api/v2', [{ path: '/a?x=1', body: '{"a":"b\\tc"}' }, { path: '/b' }]);
    assert.equal(text, '/api/v2/a?x=1\t{"a":"b\\tc"}\n/api/v2/b');
  });

  it('refuses a path with a tab or a body with a line break, which the file could not carry', () => {
    assert.throws(() => rotationFile('', [{ path: '/a\tb' }]), /tab or line break/);
    assert.throws(() => rotationFile('', [{ path: '/a', body: '{\n}' }]), /line break/);
  });

  it('writes the method and body as Lua literals, escaping quotes, backslashes and control characters', () => {
    const script = wrkScript({ method: 'POST', body: '{"q":"a\\"b"}\n\u00011' });
    assert.ok(script.includes('wrk.method = "POST"'));
    assert.ok(script.includes('wrk.body = "{\\"q\\":\\"a\\\\\\"b\\"}\\010\\0011"'), script);
  });

  it('prebuilds rotating requests only when there is a rotation file', () => {
    assert.ok(!wrkScript({ method: 'GET' }).includes('function request()'));
    assert.ok(wrkScript({ method: 'GET', rotationFile: '/tmp/r.txt' }).includes('io.lines("/tmp/r.txt")'));
  });
});
