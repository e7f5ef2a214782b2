import { createHash } from 'node:crypto';

/**
 * Deterministic randomness for the demo data set.
 *
 * Every entity (the directory, each catalog filing, each scope) gets its own generator seeded from
 * sha256(seed, label...), so filing #n is the same whatever else changed around it, and a benchmark can
 * regenerate any filing without replaying the ones before it. sfc32 (128-bit state) is used rather than
 * mulberry32 because its state is seeded with 128 bits from the hash instead of 32.
 */
export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  constructor(seedBytes: Buffer) {
    this.a = seedBytes.readUInt32LE(0);
    this.b = seedBytes.readUInt32LE(4);
    this.c = seedBytes.readUInt32LE(8);
    this.d = seedBytes.readUInt32LE(12);
    // Discard the first outputs: sfc32 mixes poorly right after seeding.
    for (let i = 0; i < 12; i++) this.nextUint32();
  }

  static for(seed: number, ...labels: (string | number)[]): Rng {
    return new Rng(digest(seed, labels));
  }

  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296;
  }

  /** Integer in [min, max], both inclusive. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** Uniform float in [min, max). */
  float(min: number, max: number): number {
    return min + this.next() * (max - min);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error('pick from empty list');
    return items[Math.floor(this.next() * items.length)] as T;
  }

  /** Picks by weight; `entries` are [value, weight] pairs. */
  weighted<T>(entries: readonly (readonly [T, number])[]): T {
    let total = 0;
    for (const [, w] of entries) total += w;
    let r = this.next() * total;
    for (const [v, w] of entries) {
      r -= w;
      if (r < 0) return v;
    }
    return entries[entries.length - 1]![0];
  }

  /** n distinct items (or all of them when n >= length), in random order. */
  sample<T>(items: readonly T[], n: number): T[] {
    const copy = items.slice();
    const k = Math.min(n, copy.length);
    for (let i = 0; i < k; i++) {
      const j = i + Math.floor(this.next() * (copy.length - i));
      const tmp = copy[i] as T;
      copy[i] = copy[j] as T;
      copy[j] = tmp;
    }
    return copy.slice(0, k);
  }

  /** A v4-shaped UUID made of 16 bytes from this generator. */
  uuid(): string {
    const bytes = Buffer.alloc(16);
    for (let i = 0; i < 16; i += 4) bytes.writeUInt32LE(this.nextUint32(), i);
    return formatUuid(bytes);
  }
}

function digest(seed: number, labels: readonly (string | number)[]): Buffer {
  const h = createHash('sha256');
  h.update(`ifrs-demo\u0000${seed}`);
  for (const l of labels) h.update(`\u0000${l}`);
  return h.digest();
}

function formatUuid(bytes: Buffer): string {
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = bytes.toString('hex', 0, 16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

/**
 * A deterministic v4-shaped UUID for (seed, labels). Ids come from a hash rather than from a shared PRNG
 * stream so they stay unique across millions of records (a 32-bit PRNG state would collide) and so a
 * record's id can be recomputed from its index alone.
 */
export function uuidFor(seed: number, ...labels: (string | number)[]): string {
  return formatUuid(digest(seed, labels));
}
