import type { RequestHandler } from 'express';
import cors from 'cors';

/**
 * The browser origins allowed to call the API, from IFRS_CORS_ORIGINS (comma-separated, each exactly an
 * origin such as `https://app.example.com`). Empty or unset: CORS stays off. A value that is not an origin
 * stops the start, rather than silently allowing nothing or more than meant.
 */
export function parseCorsOrigins(value: string | undefined): string[] {
  if (!value || !value.trim()) return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((origin) => {
      let parsed: URL | null;
      try {
        parsed = new URL(origin);
      } catch {
        parsed = null;
      }
      if (!parsed || parsed.origin !== origin || !/^https?:$/.test(parsed.protocol)) {
        throw new Error(`IFRS_CORS_ORIGINS: "${origin}" is not an origin (scheme://host[:port], no path or trailing slash)`);
      }
      return origin;
    });
}

/** Headers a browser script may read from an answer besides the CORS-safelisted ones. */
const EXPOSED = ['X-Request-Id', 'Retry-After', 'ETag', 'Location', 'File-Version-Id', 'Content-Disposition'];
const ALLOWED = ['Authorization', 'Content-Type', 'If-None-Match', 'Idempotency-Key', 'X-Request-Id', 'Range'];

/**
 * CORS for the allowed origins only; null when none is configured (off). A preflight from an allowed origin
 * is answered here (204), before authentication: a browser sends it without the key. A request from any
 * other origin passes through untouched, so it gets no CORS headers and the browser keeps the answer from
 * the page (its preflight is the 401 it always was).
 */
export function corsForOrigins(origins: string[]): RequestHandler | null {
  if (origins.length === 0) return null;
  const allowed = new Set(origins);
  const handler = cors({
    origin: origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    allowedHeaders: ALLOWED,
    exposedHeaders: EXPOSED,
    maxAge: 600,
  });
  return (req, res, next) => {
    // Answers differ by origin once CORS is on: a cache must keep them apart.
    res.vary('Origin');
    const origin = req.headers.origin;
    if (origin === undefined || !allowed.has(origin)) return next();
    handler(req, res, next);
  };
}
