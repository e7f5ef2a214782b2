import zlib from 'node:zlib';
import type { Request, RequestHandler, Response } from 'express';
import compression from 'compression';

/** Answers below this size go out as they are: compressing them costs more than the bytes it saves. */
export const COMPRESSION_THRESHOLD = 1024;

/** Brotli at quality 4 (the `compression` library's choice too): most of gzip's speed with smaller output. */
const BROTLI_QUALITY = 4;

type Coding = 'br' | 'gzip';

/** The content coding the client asks for, br before gzip; null for none (or only identity). */
function codingAsked(req: Request | undefined): Coding | null {
  if (!req?.headers['accept-encoding']) return null;
  if (req.acceptsEncodings('br') === 'br') return 'br';
  if (req.acceptsEncodings('gzip') === 'gzip') return 'gzip';
  return null;
}

function compressed(coding: Coding, body: Buffer, done: (err: Error | null, out: Buffer) => void): void {
  if (coding === 'br') {
    zlib.brotliCompress(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } }, done);
  } else zlib.gzip(body, done);
}

/**
 * Sends a JSON text as the API's answers go out: the status, the JSON content type and an exact
 * Content-Length; above COMPRESSION_THRESHOLD bytes in br or gzip when the client's Accept-Encoding allows
 * it (with `Vary: Accept-Encoding`), on the zlib thread pool. The size is known before anything is
 * written, so an answer below the threshold costs nothing more than before: the `compression` middleware
 * wrapped every response's methods to find the size out, which cost about a quarter of GET /users/me's rate.
 */
export function sendJsonText(res: Response, status: number, json: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  const bytes = Buffer.byteLength(json);
  const coding = bytes >= COMPRESSION_THRESHOLD ? codingAsked(res.req) : null;
  if (!coding) {
    res.setHeader('Content-Length', bytes);
    // As a string: node writes it together with the headers in one write.
    res.end(json);
    return;
  }
  res.setHeader('Vary', 'Accept-Encoding');
  compressed(coding, Buffer.from(json), (err, out) => {
    if (res.destroyed) return;
    if (err) {
      res.setHeader('Content-Length', bytes);
      res.end(json);
      return;
    }
    res.setHeader('Content-Encoding', coding);
    res.setHeader('Content-Length', out.length);
    res.end(out);
  });
}

/**
 * The `compression` middleware, for the answers that are not JSON texts (the reference page and its script):
 * gzip or br above the threshold as the client prefers.
 */
export function compressOtherAnswers(): RequestHandler {
  const compress = compression({ threshold: COMPRESSION_THRESHOLD });
  return (req, res, next) => (req.headers['accept-encoding'] ? compress(req, res, next) : next());
}
