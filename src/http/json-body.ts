import type { Request } from 'express';

export function isJsonContentType(ct: string | undefined): boolean {
  if (!ct) return false;
  const type = ct.split(';')[0].trim().toLowerCase();
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export function hasBody(req: Request): boolean {
  const len = req.headers['content-length'];
  return (len !== undefined && len !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/** An error as body-parser gives it (the error handler maps them by `type`, or by `status` when exposed). */
export function bodyError(status: number, message: string, type: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, expose: true, type });
}

/** The first character that is not JSON whitespace (space, tab, line feed, carriage return). */
export const JSON_START = /^[ \t\n\r]*([^ \t\n\r])/;

/**
 * The common body read without body-parser (about 5% of a small write's CPU went to it): no content
 * coding, no charset or UTF-8, a Content-Length within the limit. It answers as body-parser's strict
 * JSON parser does (a leading BOM dropped, only an object or array at the top, the same error types);
 * anything else (gzip, another charset, chunked, too large) is left to body-parser: false.
 */
export function readPlainJsonBody(req: Request, limit: number, resolve: () => void, reject: (e: unknown) => void): boolean {
  const coding = req.headers['content-encoding'];
  if (coding !== undefined && coding.toLowerCase() !== 'identity') return false;
  const declared = req.headers['content-length'];
  if (declared === undefined || !/^\d+$/.test(declared)) return false;
  const length = Number(declared);
  if (length > limit) return false;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(req.headers['content-type'] ?? '');
  if (charset && charset[1].toLowerCase() !== 'utf-8') return false;
  const chunks: Buffer[] = [];
  let received = 0;
  const done = (e?: unknown) => {
    req.off('data', onData);
    req.off('end', onEnd);
    req.off('aborted', onAborted);
    req.off('error', done);
    if (e) reject(e);
  };
  const onData = (chunk: Buffer) => {
    chunks.push(chunk);
    received += chunk.length;
  };
  const onAborted = () => done(bodyError(400, 'request aborted', 'request.aborted'));
  const onEnd = () => {
    done();
    if (received !== length) return reject(bodyError(400, 'request size did not match content length', 'request.size.invalid'));
    let text = Buffer.concat(chunks, received).toString('utf8');
    if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    if (text.length === 0) {
      req.body = {};
      return resolve();
    }
    const first = JSON_START.exec(text)?.[1];
    if (first !== '{' && first !== '[') return reject(bodyError(400, 'Unexpected token in JSON', 'entity.parse.failed'));
    try {
      req.body = JSON.parse(text);
    } catch (e) {
      return reject(bodyError(400, (e as Error).message, 'entity.parse.failed'));
    }
    resolve();
  };
  req.on('data', onData);
  req.on('end', onEnd);
  req.on('aborted', onAborted);
  req.on('error', done);
  return true;
}
