import { AppError, DomainError, temporarilyUnavailable } from '../domain/errors';
import { boundDetails } from './validation';

/** Driver errors that mean "the database is not there right now": a 503 with Retry-After, not a 500. */
export function isUnavailable(e: unknown): boolean {
  const err = e as { code?: string; name?: string; message?: string; syscall?: string };
  return (
    ['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', '57P01', '57P02', '57P03', '53300', '08006', '08001', '08003'].includes(err?.code ?? '') ||
    // The embedded Postgres's Unix socket file is removed when it shuts down cleanly.
    (err?.code === 'ENOENT' && err?.syscall === 'connect') ||
    err?.name === 'KnexTimeoutError' ||
    /Connection terminated|connect ECONNREFUSED/.test(err?.message ?? '')
  );
}

/** Seconds a client is asked to wait after a statement ran past the statement timeout. */
export const STATEMENT_TIMEOUT_RETRY_AFTER = 5;

/** The coded error an exception is answered with; null for an unexpected one (a 500). */
export function knownError(err: unknown): AppError | null {
  const anyErr = err as { type?: string; status?: number; expose?: boolean; message?: string };
  if (err instanceof AppError) return err;
  if (err instanceof DomainError) return new AppError(err.status, err.code, err.message, err.details);
  if (anyErr?.type === 'entity.too.large') return new AppError(413, 'request_too_large', 'The request body is larger than this operation accepts.');
  if (anyErr?.type === 'entity.parse.failed')
    return new AppError(400, 'invalid_request', 'The request body is not valid JSON.', [{ location: 'body', path: [], code: 'invalid_type', message: 'Malformed JSON.' }]);
  if (anyErr?.type === 'encoding.unsupported' || anyErr?.type === 'charset.unsupported') return new AppError(415, 'unsupported_media_type', 'Unsupported body encoding or charset.');
  if (anyErr?.expose && anyErr.status && anyErr.status >= 400 && anyErr.status < 500) return new AppError(anyErr.status, 'invalid_request', anyErr.message ?? 'Bad request.');
  if (isUnavailable(err)) return temporarilyUnavailable();
  // query_canceled: a statement ran past the statement timeout (or was cancelled because its client left, when no one reads this).
  if ((err as { code?: string })?.code === '57014')
    return temporarilyUnavailable('A database statement ran past the statement timeout and was cancelled; retry later or narrow the request.', STATEMENT_TIMEOUT_RETRY_AFTER);
  return null;
}

export const internalError = () => new AppError(500, 'internal_error', 'An unexpected error occurred; nothing can be inferred about whether a write took effect.');

/** The spec's error shape. */
export function errorBody(e: AppError, requestId: string): Record<string, unknown> {
  const body: Record<string, unknown> = { error: e.message.slice(0, 1000), code: e.code };
  if (e.details.length) body.details = boundDetails(e.details);
  body.requestId = requestId;
  Object.assign(body, e.extra);
  return body;
}
