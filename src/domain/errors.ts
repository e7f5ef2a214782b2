/**
 * One error taxonomy for the whole service: each error carries its HTTP status and the spec's code,
 * so adapters and deciders throw these and one middleware writes the spec's error shape.
 */
export type DetailLocation = 'path' | 'query' | 'header' | 'body';
export type DetailCode = 'required' | 'invalid_type' | 'invalid_value' | 'unknown_field';

export interface ErrorDetail {
  location: DetailLocation;
  path: string[];
  code: DetailCode;
  message: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export const invalidRequest = (message: string, details: ErrorDetail[] = []) => new AppError(400, 'invalid_request', message, details);
export const invalidCursor = (message = 'The cursor is invalid, expired or does not match this request; restart without a cursor.') =>
  new AppError(400, 'invalid_cursor', message);
/** The HTTP bearer scheme (RFC 6750, section 3): a 401 carries the challenge in WWW-Authenticate. */
export const unauthenticated = (message = 'A valid API key is required: Authorization: Bearer <API_KEY>.') =>
  new AppError(401, 'unauthenticated', message, [], {}, { 'WWW-Authenticate': 'Bearer' });
export const forbidden = (message = 'This credential may not perform this operation.') => new AppError(403, 'forbidden', message);
export const notFound = (message = 'The resource does not exist or is not visible to this caller.') => new AppError(404, 'not_found', message);
export const conflict = (code: string, message: string) => new AppError(409, code, message);
export const datasetNotEnabled = (dataset: string) =>
  new AppError(403, 'dataset_not_enabled', `The ${dataset} dataset is not enabled for this tenant.`, [], { dataset });
export const temporarilyUnavailable = (message = 'A dependency is temporarily unavailable; retry shortly.', retryAfterSeconds = 2) =>
  new AppError(503, 'temporarily_unavailable', message, [], {}, { 'Retry-After': String(retryAfterSeconds) });

/** Optimistic concurrency: the stream moved on since it was read. Same type for every event store adapter. */
export class ExpectedVersionConflict extends Error {
  constructor(readonly streamId: string, readonly expected: number | 'any', readonly actual: number | null) {
    super(`stream ${streamId}: expected version ${expected}, actual ${actual ?? 'unknown'}`);
  }
}

/** A decider's refusal. The command layer maps it to an AppError. */
export class DomainError extends Error {
  constructor(readonly code: string, message: string, readonly status = 409, readonly details: ErrorDetail[] = []) {
    super(message);
  }
}

/** A bad import line (its reason is the line's error): thrown by importers and by the file ingest adapter. */
export class ImportRecordError extends Error {}
