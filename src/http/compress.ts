import type { Request, RequestHandler, Response } from 'express';
import compression from 'compression';

/** Answers below this size go out as they are: compressing them costs more than the bytes it saves. */
export const COMPRESSION_THRESHOLD = 1024;

/**
 * gzip or br (as the client's Accept-Encoding prefers) for answers above the threshold whose type
 * compresses (JSON, the reference page). Not for the signed file addresses: a file's bytes are served with
 * byte ranges and an exact Content-Length, which a content coding would change under the client.
 */
export function compressAnswers(): RequestHandler {
  const compress = compression({
    threshold: COMPRESSION_THRESHOLD,
    filter: (req: Request, res: Response) => !req.path.startsWith('/api/v2/signed/') && compression.filter(req, res),
  });
  // A request that accepts no content coding is passed by: compression would wrap the response's methods for
  // nothing (about 10 µs of CPU per request).
  return (req, res, next) => (req.headers['accept-encoding'] ? compress(req, res, next) : next());
}
