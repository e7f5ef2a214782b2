import crypto from 'node:crypto';

/** Every key starts with this display prefix; the rest is the key id and the secret. */
export const KEY_PREFIX = 'ifrs_';
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const KEY_ID_LENGTH = 16;
const SECRET_LENGTH = 40;

function randomToken(n: number): string {
  // Rejection sampling keeps every character equally likely.
  let out = '';
  while (out.length < n) {
    for (const b of crypto.randomBytes(n * 2)) {
      if (b < 248 && out.length < n) out += ALPHABET[b % 62];
    }
  }
  return out;
}

export function newApiKey(): { keyId: string; apiKey: string } {
  const keyId = randomToken(KEY_ID_LENGTH);
  return { keyId, apiKey: `${KEY_PREFIX}${keyId}${randomToken(SECRET_LENGTH)}` };
}

/** Keys carry 238 bits of randomness, so a fast hash is enough: there is nothing to brute-force. */
export function hashApiKey(apiKey: string): string {
  return crypto.createHash('sha256').update(apiKey).digest('hex');
}

export function parseApiKey(apiKey: string): { keyId: string } | null {
  if (apiKey.length !== KEY_PREFIX.length + KEY_ID_LENGTH + SECRET_LENGTH || !apiKey.startsWith(KEY_PREFIX)) return null;
  if (!/^[A-Za-z0-9]+$/.test(apiKey.slice(KEY_PREFIX.length))) return null;
  return { keyId: apiKey.slice(KEY_PREFIX.length, KEY_PREFIX.length + KEY_ID_LENGTH) };
}

export function hashesEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}
