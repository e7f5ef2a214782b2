import type { Request } from 'express';
import { AppError, unauthenticated } from '../domain/errors';
import type { Principal } from '../domain/principal';

/**
 * Two Authorization headers are ambiguous credentials: Node keeps the first and drops the rest, so a valid key
 * followed by an invalid one was served as the first. Refused whatever their order.
 */
export function rejectRepeatedAuthorization(rawHeaders: string[]): void {
  let seen = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    if (name.length === 13 && name.toLowerCase() === 'authorization' && ++seen > 1) {
      const message = 'The Authorization header may be given only once.';
      throw new AppError(400, 'invalid_request', message, [{ location: 'header', path: ['authorization'], code: 'invalid_value', message }]);
    }
  }
}

export function bearerKey(req: Request): string {
  rejectRepeatedAuthorization(req.rawHeaders);
  const header = req.headers.authorization;
  const m = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) throw unauthenticated();
  return m[1];
}

export function knownPrincipal(principal: Principal | null): Principal {
  if (!principal) throw unauthenticated('The API key is invalid or revoked.');
  return principal;
}
