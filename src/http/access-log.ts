import type { Request, Response } from 'express';
import pino from 'pino';
import type { Logger } from '../util/logger';

interface LineStream {
  write(line: string): unknown;
}

/**
 * The access log: one line per request at `info` (a 5xx at `error`) on the service's pino logger, written when
 * the answer is finished or the client went away (`aborted`). The route is the pattern
 * (`/api/v2/insurance/filings/:filingId`), not the URL: a signed address carries its signature in the query and
 * an upload token in the path. No header is logged, so neither the API key nor the Authorization header can
 * reach the log.
 *
 * The `info` line is written as text straight to the logger's stream, in pino's own shape (level, time, the
 * logger's bindings, the fields, msg): pino's generic serialization of the same object cost about as much as
 * the rest of GET /users/me's own work (bench/scenarios/http-manners.ts: the log at 84% of the rate without it).
 * pino-http costs more still: it binds two child loggers to every request (~50 µs measured). Other levels,
 * and a logger that is not a plain pino one, go through pino.
 */
export function accessLogger(log: Logger): (req: Request, res: Response, seconds: number) => void {
  const stream = (log as unknown as Record<symbol, LineStream | undefined>)[pino.symbols.streamSym];
  const direct = typeof stream?.write === 'function' && log.levels.values.info === 30 && isPlainPino(log);
  // The logger's bindings (`"service":"ifrs"`) as pino writes them after the time.
  const bindings = JSON.stringify(log.bindings()).slice(1, -1);
  const afterTime = bindings ? `,${bindings}` : '';
  return (req, res, seconds) => {
    const status = res.statusCode;
    const level = status >= 500 ? 'error' : 'info';
    if (!log.isLevelEnabled(level)) return;
    const route = req.route ? `${req.baseUrl}${req.route.path as string}` : 'unmatched';
    const durationMs = Math.round(seconds * 1e5) / 100;
    const tenantId = req.principal?.tenantId ?? null;
    const aborted = !res.writableFinished;
    if (direct && level === 'info') {
      stream!.write(
        `{"level":30,"time":${Date.now()}${afterTime},"requestId":${JSON.stringify(req.requestId)},"method":${JSON.stringify(req.method)},"route":${JSON.stringify(route)},"status":${status},"durationMs":${durationMs},"tenantId":${tenantId === null ? 'null' : JSON.stringify(tenantId)}${aborted ? ',"aborted":true' : ''},"msg":"request"}\n`,
      );
      return;
    }
    const line = { requestId: req.requestId, method: req.method, route, status, durationMs, tenantId, ...(aborted ? { aborted: true } : {}) };
    log[level](line, status >= 500 ? 'request failed' : 'request');
  };
}

/** A logger whose lines pino writes as they come: epoch-ms time, `msg`, no mixin, log formatter or hooks that would change them. */
function isPlainPino(log: Logger): boolean {
  const s = pino.symbols;
  const own = log as unknown as Record<symbol, unknown>;
  const formatters = own[s.formattersSym] as { log?: unknown } | undefined;
  const hooks = own[s.hooksSym] as { logMethod?: unknown; streamWrite?: unknown } | undefined;
  return own[s.timeSym] === pino.stdTimeFunctions.epochTime && own[s.messageKeySym] === 'msg' && !own[s.mixinSym] && !formatters?.log && !hooks?.logMethod && !hooks?.streamWrite;
}
