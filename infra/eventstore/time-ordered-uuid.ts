import crypto from 'node:crypto';

/**
 * A version 7 UUID (RFC 9562): 48 bits of Unix milliseconds, then random bits. Event ids are opaque, but the
 * event store keeps a unique index on them: random (v4) ids land on a random leaf of that index, so at millions
 * of events every append dirties a page that is rarely in cache and, after each checkpoint, writes a full-page
 * image of it. Ids that grow with time append to the index's right edge instead.
 */
const POOL_SIZE = 16 * 1024;
let pool = Buffer.alloc(0);
let offset = POOL_SIZE;

function randomTen(): Buffer {
  if (offset + 10 > pool.length) {
    pool = crypto.randomBytes(POOL_SIZE);
    offset = 0;
  }
  const bytes = pool.subarray(offset, offset + 10);
  offset += 10;
  return bytes;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

export function timeOrderedUuid(now: number = Date.now()): string {
  const r = randomTen();
  const ms = now.toString(16).padStart(12, '0').slice(-12);
  const ver = 0x70 | (r[0] & 0x0f);
  const variant = 0x80 | (r[2] & 0x3f);
  return (
    `${ms.slice(0, 8)}-${ms.slice(8, 12)}-` +
    `${HEX[ver]}${HEX[r[1]]}-${HEX[variant]}${HEX[r[3]]}-` +
    `${HEX[r[4]]}${HEX[r[5]]}${HEX[r[6]]}${HEX[r[7]]}${HEX[r[8]]}${HEX[r[9]]}`
  );
}
