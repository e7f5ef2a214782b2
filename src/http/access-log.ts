import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import pinoHttp from 'pino-http';
import type { Logger } from '../logger';

/**
 * What one access-log line says about a request. The route is the pattern (`/insurance/filings/:filingId`),
 * not the URL: a signed address carries its signature in the query and an upload token in the path, and
 * no header is logged, so neither the API key nor the Authorization header can reach the log.
 */
function requestFields(req: IncomingMessage, res: ServerResponse, responseTime: number) {
  const r = req as Request;
  return {
    method: r.method,
    route: r.route ? `${r.baseUrl}${r.route.path as string}` : 'unmatched',
    status: res.statusCode,
    durationMs: responseTime,
    tenantId: r.principal?.tenantId ?? null,
  };
}

/**
 * One line per request at `info` (a 5xx at `error`), when the answer is finished or the client went away.
 * Child loggers are bound with the request id only: pino-http's default binds the whole request (headers
 * included) to every line.
 */
export function accessLog(log: Logger): RequestHandler {
  return pinoHttp({
    logger: log,
    genReqId: (req) => (req as Request).requestId,
    customAttributeKeys: { reqId: 'requestId' },
    quietReqLogger: true,
    quietResLogger: true,
    wrapSerializers: false,
    serializers: { req: (req: Request) => ({ id: req.requestId }) },
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessMessage: () => 'request',
    customSuccessObject: (req, res, extra: { responseTime: number }) => requestFields(req, res, extra.responseTime),
    customErrorMessage: () => 'request failed',
    customErrorObject: (req, res, err, extra: { responseTime: number }) => ({ ...requestFields(req, res, extra.responseTime), error: err.message }),
  }) as unknown as RequestHandler;
}
