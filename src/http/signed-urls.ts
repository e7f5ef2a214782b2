import crypto from 'node:crypto';
import type { Request } from 'express';

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

  /** Absolute URL for a signed path: PUBLIC_BASE_URL when set, else `baseUrl` (the request's own scheme and host). */
  absolute(baseUrl: string, pathAndQuery: string): string {
    return (this.publicBaseUrl ?? baseUrl).replace(/\/+$/, '') + pathAndQuery;
  }

}

/** The scheme and host a request came to, as Express reads them: a route hands this to a command service, not the request. */
export const requestBaseUrl = (req: Pick<Request, 'protocol' | 'get'>): string => `${req.protocol}://${req.get('host')}`;
