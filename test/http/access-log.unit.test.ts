import assert from 'node:assert/strict';
import pino from 'pino';
import type { Request, Response } from 'express';
import { accessLogger } from '../../src/http/access-log';

/** A logger writing into an array, as the service's (pino, bindings `service`). */
function capture(opts: pino.LoggerOptions = {}) {
  const lines: string[] = [];
  const log = pino({ level: 'info', base: { service: 'ifrs' }, ...opts }, { write: (l: string) => void lines.push(l) });
  return { log, lines };
}

const request = (over: Partial<Record<string, unknown>> = {}) =>
  ({ requestId: 'req-"1"', method: 'GET', baseUrl: '/api/v2', route: { path: '/insurance/filings/:filingId' }, principal: { tenantId: 't-1' }, ...over }) as unknown as Request;
const response = (statusCode: number, finished = true) => ({ statusCode, writableFinished: finished }) as unknown as Response;

describe('access log lines', () => {
  it('rule: the info line written straight to the stream is what pino writes for the same fields (level, time, bindings, fields, msg)', () => {
    const direct = capture();
    accessLogger(direct.log)(request(), response(200), 0.0123456);
    const viaPino = capture();
    viaPino.log.info({ requestId: 'req-"1"', method: 'GET', route: '/api/v2/insurance/filings/:filingId', status: 200, durationMs: 12.35, tenantId: 't-1' }, 'request');
    assert.equal(direct.lines.length, 1);
    const [a, b] = [JSON.parse(direct.lines[0]), JSON.parse(viaPino.lines[0])];
    assert.ok(Math.abs(a.time - b.time) < 5_000);
    assert.deepEqual({ ...a, time: 0 }, { ...b, time: 0 });
    assert.deepEqual(Object.keys(a), Object.keys(b));
    assert.ok(direct.lines[0].endsWith('}\n'));
  });

  it('rule: an unmatched route, no tenant and a client that went away are written as such', () => {
    const c = capture();
    accessLogger(c.log)(request({ route: undefined, principal: undefined }), response(404, false), 0.001);
    const line = JSON.parse(c.lines[0]);
    assert.equal(line.route, 'unmatched');
    assert.equal(line.tenantId, null);
    assert.equal(line.aborted, true);
    assert.equal(line.status, 404);
  });

  it('rule: a 5xx is logged at error through pino; below the logger level nothing is written', () => {
    const c = capture();
    accessLogger(c.log)(request(), response(503), 0.001);
    assert.equal(JSON.parse(c.lines[0]).level, 50);
    assert.equal(JSON.parse(c.lines[0]).msg, 'request failed');
    const quiet = capture({ level: 'warn' });
    accessLogger(quiet.log)(request(), response(200), 0.001);
    assert.equal(quiet.lines.length, 0);
  });

  it('rule: a logger with a mixin (lines pino would change) gets its lines from pino', () => {
    const c = capture({ mixin: () => ({ extra: 1 }) });
    accessLogger(c.log)(request(), response(200), 0.001);
    assert.equal(JSON.parse(c.lines[0]).extra, 1);
  });
});
