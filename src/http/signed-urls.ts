import crypto from 'node:crypto';
import type { Request } from 'express';

/** The base URL a request reached the API at (its scheme and host), for the addresses an answer gives back. */
export function requestBaseUrl(req: Request): string {
  return `${req.protocol}://${req.get('host')}`;
}

/**
 * Short-lived addresses that work without the API key (downloads, uploads). The signature covers the
 * method, the path and the expiry, so an altered or expired address is refused.
 */
export class SignedUrls {
  constructor(private readonly secret: Buffer, private readonly publicBaseUrl: string | null = null) {}

  private sig(method: string, path: string, expires: number): string {
    return crypto.createHmac('sha256', this.secret).update(`signed-url\n${method.toUpperCase()}\n${path}\n${expires}`).digest('base64url');
  }

  /** `path` is absolute from the host root, e.g. `/api/v2/signed/downloads/<token>`. */
  sign(method: string, path: string, ttlSeconds: number, now = Date.now()): { url: string; expiresAt: Date; query: string } {
    const expires = Math.floor(now / 1000) + ttlSeconds;
    const query = `expires=${expires}&signature=${this.sig(method, path, expires)}`;
    return { url: `${path}?${query}`, expiresAt: new Date(expires * 1000), query };
  }

  verify(method: string, path: string, expires: unknown, signature: unknown, now = Date.now()): 'ok' | 'expired' | 'invalid' {
    if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d{1,12}$/.test(expires)) return 'invalid';
    const expected = Buffer.from(this.sig(method, path, Number(expires)));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !crypto.timingSafeEqual(expected, given)) return 'invalid';
    return Number(expires) * 1000 < now ? 'expired' : 'ok';
  }

  /** Absolute URL for a signed path: PUBLIC_BASE_URL when set, else the base URL the request came to (requestBaseUrl). */
  absolute(requestBase: string, pathAndQuery: string): string {
    const base = this.publicBaseUrl ?? requestBase;
    return base.replace(/\/+$/, '') + pathAndQuery;
  }
}
