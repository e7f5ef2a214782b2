import express, { type NextFunction, type Request, type Response } from 'express';
import client from 'prom-client';
import { AppError, notFound } from '../domain/errors';
import type { RecordedEvent } from '../domain/events';
import type { Principal } from '../domain/principal';
import type { Logger } from '../util/logger';
import type { IdempotencyStore, StoredAnswer } from '../ports/idempotency-store';
import { claimKey, idempotencyKeyOf, idempotencyKeyRefused, keyedEvents, requestFingerprint, type HeldKey } from './idempotency';
import type { WriteTrace } from '../ports/write-trace';
import { rejectUnstorableText } from './input-hygiene';
import { addAllowedMethod, methodNotAllowed } from './method-not-allowed';
import { buildOpenApi } from './openapi';
import { parseQueryString } from './query-string';
import { requestIdFor } from './request-id';
import type { RequestLimits } from './request-limits';
import type { Reply, RouteSpec } from './route';
import { accessLogger } from './access-log';
import { compressOtherAnswers, sendJsonText } from './compress';
import { answerNotModified, documentConditional, isRecordGet } from './conditional';
import { corsForOrigins } from './cors';
import { mountReferencePage } from './reference-page';
import { parseOrThrow } from './validation';
import { z } from './zod';
import { hasBody, isJsonContentType, readPlainJsonBody } from './json-body';
import { errorBody, internalError, knownError } from './error-answers';
import { RequestContext } from './request-context';
import { bearerKey, knownPrincipal } from './bearer';

declare module 'express-serve-static-core' {
  interface Request {
    requestId: string;
    principal?: Principal;
  }
}

export interface AppDeps {
  routes: RouteSpec[];
  /** A cached answer may come back synchronously. */
  authenticate(apiKey: string): Principal | null | Promise<Principal | null>;
  log: Logger;
  health: { ready(): Promise<{ ok: boolean; details: Record<string, unknown> }> };
  metrics: client.Registry;
  decisions?: string;
  /** Where Idempotency-Key answers are kept; without it the header is ignored. */
  idempotency?: IdempotencyStore;
  /** Per-key rate and concurrency limits; none: unlimited. */
  limits?: RequestLimits;
  /** Browser origins allowed by CORS (IFRS_CORS_ORIGINS); none: CORS off. */
  corsOrigins?: string[];
  /** The event store's stream read: a keyed retry looks there for the write of a host that died before answering. */
  readStream?: (streamId: string) => Promise<RecordedEvent[]>;
}

const DEFAULT_BODY_LIMIT = 1024 * 1024;
const NO_QUERY = z.strictObject({});

/**
 * res.json without Express's per-response work that cannot apply here: no ETag (Express's is disabled;
 * record GETs get theirs in conditional.ts), and a fixed content type instead of parsing and re-formatting it.
 */
function sendJson(res: Response, status: number, body: unknown): void {
  sendJsonText(res, status, JSON.stringify(body));
}

/** `managed-filings` of `/managed-filings/x/items` (the text up to the second slash). */
function firstSegment(path: string): string {
  const end = path.indexOf('/', 1);
  return end < 0 ? path.slice(1) : path.slice(1, end);
}

/** A reply as it goes on the wire, for an Idempotency-Key to keep. */
function storedAnswer(reply: Reply): StoredAnswer {
  const body = reply.json ?? (reply.body === undefined ? null : JSON.stringify(reply.body));
  return { status: reply.status ?? (body === null ? 204 : 200), headers: reply.headers ?? {}, body };
}

function sendAnswer(res: Response, answer: StoredAnswer): void {
  for (const k in answer.headers) res.setHeader(k, answer.headers[k]);
  if (answer.body === null) res.status(answer.status).end();
  else sendJsonText(res, answer.status, answer.body);
}

export function toOpenApiPathToExpress(p: string): string {
  return p.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', parseQueryString);

  const duration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by route and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [deps.metrics],
  });

  const logAccess = accessLogger(deps.log);
  app.use((req, res, next) => {
    req.requestId = requestIdFor(req.headers['x-request-id']);
    res.setHeader('X-Request-Id', req.requestId);
    const start = process.hrtime.bigint();
    // 'close', not 'finish': a request whose client went away is logged and counted too.
    res.once('close', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9;
      const route = (req.route?.path as string | undefined) ?? 'unmatched';
      duration.observe({ method: req.method, route, status: String(res.statusCode) }, seconds);
      logAccess(req, res, seconds);
    });
    next();
  });
  // Node's own check answered a bare 400 (createAppServer turns it off): RFC 9112 3.2 wants Host in HTTP/1.1.
  app.use((req, res, next) => {
    if (req.headers.host !== undefined || req.httpVersion !== '1.1') return next();
    const message = 'An HTTP/1.1 request must carry a Host header.';
    res.setHeader('Connection', 'close');
    next(new AppError(400, 'invalid_request', message, [{ location: 'header', path: ['host'], code: 'required', message }]));
  });
  const cors = corsForOrigins(deps.corsOrigins ?? []);
  if (cors) app.use(cors);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    try {
      const r = await deps.health.ready();
      res.status(r.ok ? 200 : 503).json({ status: r.ok ? 'ready' : 'not_ready', ...r.details });
    } catch (e) {
      res.status(503).json({ status: 'not_ready', error: String((e as Error).message) });
    }
  });
  app.get('/metrics', async (_req, res) => {
    res.setHeader('Content-Type', deps.metrics.contentType);
    res.send(await deps.metrics.metrics());
  });

  const api = express.Router({ caseSensitive: true, strict: false });
  let openapi: string | null = null;
  // The reference page and its script (HTML and JavaScript, not JSON answers): compressed by the middleware.
  api.use('/docs', compressOtherAnswers());
  mountReferencePage(api);
  api.get('/openapi.json', (_req, res) => {
    openapi ??= JSON.stringify(buildOpenApi(deps.routes.map(documentConditional), deps.decisions ?? ''));
    sendJsonText(res, 200, openapi);
  });

  // Known path, other method: authenticated first like any route, then a coded 405 (unknown path: 404).
  const authenticate = async (req: Request, _res: Response, next: NextFunction) => {
    try {
      req.principal = knownPrincipal(await deps.authenticate(bearerKey(req)));
      next();
    } catch (e) {
      next(e);
    }
  };

  /**
   * A keyed request that failed. Before any append (or after one known to have written nothing) the key is
   * released, so a retry runs again; once an append may have committed, the error answer is kept like a
   * success, so a retry cannot write a second time.
   */
  const settleFailedKey = async (held: HeldKey, trace: WriteTrace, err: unknown, requestId: string) => {
    try {
      if (!trace.mayHaveWritten) return await held.release();
      const e = knownError(err) ?? internalError();
      await held.complete({ status: e.status, headers: e.headers, body: JSON.stringify(errorBody(e, requestId)) });
    } catch (storeError) {
      deps.log.warn({ err: storeError, requestId }, 'idempotency key not settled; it frees itself after its lease');
    }
  };

  const readJsonBody = (parser: express.RequestHandler, req: Request, res: Response, limit: number) =>
    new Promise<void>((resolve, reject) => {
      if (!isJsonContentType(req.headers['content-type'])) {
        reject(new AppError(415, 'unsupported_media_type', 'The request body must be JSON (Content-Type: application/json).'));
        return;
      }
      if (!readPlainJsonBody(req, limit, resolve, reject)) void parser(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });

  const limits = deps.limits;
  const byFirstSegment = new Map<string, express.Router>();
  const methodsByPath = new Map<string, Set<string>>();
  addAllowedMethod(methodsByPath, '/openapi.json', 'get');
  for (const route of deps.routes) {
    const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
    const group = route.concurrency;
    const jsonParser = express.json({ limit, strict: true, type: () => true });
    const recordGet = isRecordGet(route);
    // One handler per route, not a middleware chain: every extra layer is another trip through the
    // router's next() on the hottest path, and a cached key authenticates without a promise round.
    const handler = async (req: Request, res: Response, next: NextFunction) => {
      try {
        // Authentication comes before any look at the input: a bad key on a bad request is a 401.
        if (route.auth !== 'none') {
          const answer = deps.authenticate(bearerKey(req));
          req.principal = knownPrincipal(answer instanceof Promise ? await answer : answer);
        }
        // Limits count every request of a key, the invalid ones too; signed addresses (no key) by their client's address.
        const limitKey = limits ? (req.principal?.keyId ?? `address:${req.socket.remoteAddress ?? ''}`) : '';
        if (limits) limits.admit(limitKey, res);
        if (!route.rawBody && hasBody(req)) await readJsonBody(jsonParser, req, res, limit);
        // Express 5 re-parses the query string on every read of req.query: read it once.
        const rawQuery = req.query as Record<string, unknown>;
        const hasQuery = Object.keys(rawQuery).length > 0;
        rejectUnstorableText('path', req.params);
        if (hasQuery) rejectUnstorableText('query', rawQuery);
        if (!route.rawBody) rejectUnstorableText('body', req.body);
        const params = route.params ? parseOrThrow(route.params, 'path', { ...req.params }) : req.params;
        // A route without query parameters and a request without any: nothing to validate.
        const query = route.query || hasQuery ? parseOrThrow(route.query ?? NO_QUERY, 'query', { ...rawQuery }) : {};
        let body: unknown = undefined;
        if (!route.rawBody) {
          if (route.body) body = parseOrThrow(route.body, 'body', req.body === undefined ? {} : req.body);
          else if (req.body !== undefined && !(typeof req.body === 'object' && Object.keys(req.body as object).length === 0)) {
            parseOrThrow(z.strictObject({}), 'body', req.body);
          }
        }
        let held: HeldKey | null = null;
        const key = route.idempotencyKey ? idempotencyKeyOf(req) : null;
        if (key !== null && route.idempotencyKey === 'refused') throw idempotencyKeyRefused();
        if (key !== null && deps.idempotency) {
          const outcome = await claimKey(deps.idempotency, req.principal as Principal, key, requestFingerprint(route, params, body));
          if ('replay' in outcome) {
            res.setHeader('Idempotent-Replayed', 'true');
            return sendAnswer(res, outcome.replay);
          }
          held = outcome.held;
        }
        const trace: WriteTrace | undefined = held ? { mayHaveWritten: false, key: held.mark } : undefined;
        const ctx = new RequestContext(query, body, params, req.principal as Principal, req, res, trace);
        if (held?.noted.length && deps.readStream) {
          // An earlier holder died after noting its streams: when its write committed, its answer is rebuilt, not
          // written again. A failure here leaves the key held (its lease frees it, the noted streams kept).
          const written = await keyedEvents(deps.readStream, held);
          if (written.length) {
            if (!route.recover) throw internalError();
            const answer = storedAnswer(await route.recover(Object.assign(ctx, { written })));
            await held.complete(answer).catch((storeError: unknown) => deps.log.error({ err: storeError, requestId: req.requestId }, 'idempotency answer not stored'));
            res.setHeader('Idempotent-Replayed', 'true');
            return sendAnswer(res, answer);
          }
        }
        let reply: Reply;
        // The slot is held while the handler works (its database work), and given back before the answer is written.
        const slot = limits && group ? limits.enter(group, limitKey, res) : false;
        try {
          reply = await route.handler(ctx);
        } catch (e) {
          if (held) await settleFailedKey(held, trace!, e, req.requestId);
          throw e;
        } finally {
          if (slot && limits && group) limits.leave(group, limitKey);
        }
        // A route that answered by itself leaves nothing to keep.
        if (held && reply.handled) await settleFailedKey(held, { mayHaveWritten: false }, null, req.requestId);
        else if (held) {
          const answer = storedAnswer(reply);
          // The write happened: it is answered even when its answer cannot be kept (a retry then waits out the lease).
          await held.complete(answer).catch((storeError: unknown) => deps.log.error({ err: storeError, requestId: req.requestId }, 'idempotency answer not stored'));
          return sendAnswer(res, answer);
        }
        if (reply.handled) return;
        if (reply.headers) for (const k in reply.headers) res.setHeader(k, reply.headers[k]);
        if (recordGet && (reply.status ?? 200) === 200 && (reply.json !== undefined || reply.body !== undefined)) {
          const json = reply.json ?? JSON.stringify(reply.body);
          if (!answerNotModified(req, res, json)) sendJsonText(res, 200, json);
        } else if (reply.json !== undefined) sendJsonText(res, reply.status ?? 200, reply.json);
        else if (reply.body === undefined) res.status(reply.status ?? 204).end();
        else sendJson(res, reply.status ?? 200, reply.body);
      } catch (e) {
        next(e);
      }
    };
    for (const p of route.paths) {
      const first = firstSegment(p);
      if (/[{:*(]/.test(first)) throw new Error(`route ${p}: its first path segment must be literal (routes are grouped by it)`);
      let group = byFirstSegment.get(first);
      if (!group) byFirstSegment.set(first, (group = express.Router({ caseSensitive: true, strict: false })));
      (group as unknown as Record<string, (path: string, h: express.RequestHandler) => void>)[route.method](toOpenApiPathToExpress(p), handler);
      addAllowedMethod(methodsByPath, toOpenApiPathToExpress(p), route.method);
    }
  }
  // The routes grouped by their (literal) first path segment: a request is matched against its group's
  // routes only, where Express's router tried every route's pattern in turn (~50 of them, a few µs each,
  // on every request). Each group keeps the routes' order and their full paths (not mounted under a
  // prefix), so req.route, req.params and req.baseUrl are what they were; a path can only match routes
  // of its own first segment, so the first matching route, and every answer, stays the same.
  api.use((req, res, next) => {
    // No route answers OPTIONS, but a router answers it by itself (200 with Allow) when its routes match
    // the path and nothing after them fails: a group must not see it; it gets the coded 405 below.
    const group = req.method === 'OPTIONS' ? undefined : byFirstSegment.get(firstSegment(req.path));
    if (group) group(req, res, next);
    else next();
  });

  api.use(authenticate, ...methodNotAllowed(methodsByPath), (req, _res, next) => next(notFound(`No route ${req.method} ${req.baseUrl}${req.path}.`)));
  app.use('/api/v2', api);
  const operationalPaths = new Map<string, Set<string>>();
  for (const p of ['/healthz', '/readyz', '/metrics']) addAllowedMethod(operationalPaths, p, 'get');
  app.use(...methodNotAllowed(operationalPaths), (req, _res, next) => next(notFound(`No route ${req.method} ${req.path}.`)));

  // A path segment whose percent-encoding does not decode fails in the router while it matches, before any
  // route's handler (a URIError marked 400 but not exposed): bad input, so a coded 400 at the path, after the
  // key check as for any route (the signed addresses need no key).
  app.use((err: unknown, req: Request, res: Response, next: NextFunction) => {
    if (!(err instanceof URIError && (err as { status?: number }).status === 400)) return next(err);
    const message = 'The path is not valid percent-encoded UTF-8.';
    const malformed = new AppError(400, 'invalid_request', message, [{ location: 'path', path: [], code: 'invalid_value', message }]);
    if (req.path.startsWith('/api/v2/signed/')) return next(malformed);
    void authenticate(req, res, (authErr?: unknown) => next(authErr ?? malformed));
  });

  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    let e = knownError(err);
    if (!e) {
      deps.log.error({ err, requestId: req.requestId }, 'unexpected error');
      e = internalError();
    }
    if (res.headersSent) return res.end();
    for (const [k, v] of Object.entries(e.headers)) res.setHeader(k, v);
    res.status(e.status).json(errorBody(e, req.requestId));
  });

  return app;
}

