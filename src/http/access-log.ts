import type { Request, Response } from 'express';
import type { Logger } from '../logger';

/**
 * The access log: one line per request at `info` (a 5xx at `error`) on the service's pino logger, written when
 * the answer is finished or the client went away (`aborted`). The route is the pattern
 * (`/api/v2/insurance/filings/:filingId`), not the URL: a signed address carries its signature in the query and
 * an upload token in the path. No header is logged, so neither the API key nor the Authorization header can
 * reach the log.
 *
 * One log call from the app's own per-request listener rather than pino-http: pino-http binds two child
 * loggers to every request before it is answered, measured at ~50 µs of CPU per request, which more than
 * doubled the cost of GET /users/me (bench/compare-serve.ts).
 */
export function accessLogger(log: Logger): (req: Request, res: Response, seconds: number) => void {
  return (req, res, seconds) => {
    const status = res.statusCode;
    const level = status >= 500 ? 'error' : 'info';
    if (!log.isLevelEnabled(level)) return;
    const line = {
      requestId: req.requestId,
      method: req.method,
      route: req.route ? `${req.baseUrl}${req.route.path as string}` : 'unmatched',
      status,
      durationMs: Math.round(seconds * 1e5) / 100,
      tenantId: req.principal?.tenantId ?? null,
      ...(res.writableFinished ? {} : { aborted: true }),
    };
    log[level](line, status >= 500 ? 'request failed' : 'request');
  };
}
