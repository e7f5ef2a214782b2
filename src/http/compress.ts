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
  return compression({
    threshold: COMPRESSION_THRESHOLD,
    filter: (req: Request, res: Response) => !req.path.startsWith('/api/v2/signed/') && compression.filter(req, res),
  });
}
