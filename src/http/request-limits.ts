import type { ServerResponse } from 'node:http';
import { AppError } from '../domain/errors';

/** Routes whose requests hold database work long enough to be capped per key (search, extracted text). */
export type ConcurrencyGroup = 'search' | 'text';

export interface RequestLimitsConfig {
  /** Sustained requests per second per key; 0 turns the bucket off. */
  ratePerSecond: number;
  /** The bucket's size: how many requests a key that has been idle may send at once. */
  burst: number;
  /** Requests per key in flight at once on each group's routes; 0 turns that group's cap off. */
  concurrency: Record<ConcurrencyGroup, number>;
}

/*
 * Defaults, from the benchmarks in bench/ (one key each, the heaviest well-behaved client we know):
 * GET /users/me at saturation reaches ~21,000 req/s on the 2-core development machine (16 connections),
 * the catalog list ~4,600 and a file's text ~6,500 (16 connections); search runs 8 clients. A bucket
 * under those rates would throttle them, so the rate default is a flood ceiling above them (a process
 * cannot serve more than that on this machine anyway); what protects the database by default is the
 * concurrency cap: 8 searches and 16 text reads in flight per key, the benchmarks' own concurrency,
 * against a pool of 20 connections, so one key never holds every connection with expensive work.
 */
export const DEFAULT_REQUEST_LIMITS: RequestLimitsConfig = {
  ratePerSecond: 30_000,
  burst: 30_000,
  concurrency: { search: 8, text: 16 },
};

/** One key's bucket: the tokens it held at `at` (ms); refilled lazily when next touched. */
interface Bucket {
  tokens: number;
  at: number;
}

/** What a take left: `allowed`, and the (fractional) tokens the bucket holds after it. */
export interface TakeResult {
  allowed: boolean;
  tokens: number;
}

const SWEEP_INTERVAL_MS = 60_000;
const SWEEP_SIZE = 50_000;

/**
 * A token bucket per key, refilled continuously at `rate` per second up to `burst`. Synchronous and
 * O(1) per request with no timers: it sits on every route, /users/me included. A full bucket is the
 * same as no bucket, so a periodic sweep forgets them and the map only holds recently busy keys.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep: number;

  constructor(readonly rate: number, readonly burst: number, private readonly now: () => number = Date.now) {
    this.lastSweep = now();
  }

  take(key: string): TakeResult {
    const now = this.now();
    if (now - this.lastSweep > SWEEP_INTERVAL_MS || (this.buckets.size > SWEEP_SIZE && now - this.lastSweep > 1000)) this.sweep(now);
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = { tokens: this.burst, at: now }));
    else if (now > b.at) {
      b.tokens = Math.min(this.burst, b.tokens + ((now - b.at) * this.rate) / 1000);
      b.at = now;
    }
    if (b.tokens < 1) return { allowed: false, tokens: b.tokens };
    b.tokens -= 1;
    return { allowed: true, tokens: b.tokens };
  }

  /** Whole seconds until the bucket holds `tokens` again, from `held` now (at least 1 when short). */
  secondsUntil(held: number, tokens: number): number {
    return held >= tokens ? 0 : Math.max(1, Math.ceil((tokens - held) / this.rate));
  }

  get size(): number {
    return this.buckets.size;
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, b] of this.buckets) if (b.tokens + ((now - b.at) * this.rate) / 1000 >= this.burst) this.buckets.delete(key);
  }
}

/** Requests in flight per key (for one group of routes); a key at its cap is refused, not queued. */
export class ConcurrencyCaps {
  private readonly inFlight = new Map<string, number>();

  /** Takes a slot; false (nothing taken) when the key already holds `cap`. */
  enter(key: string, cap: number): boolean {
    const n = this.inFlight.get(key) ?? 0;
    if (n >= cap) return false;
    this.inFlight.set(key, n + 1);
    return true;
  }

  leave(key: string): void {
    const n = (this.inFlight.get(key) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(key);
    else this.inFlight.set(key, n);
  }

  held(key: string): number {
    return this.inFlight.get(key) ?? 0;
  }
}

const RATE_POLICY = 'per-key';

/**
 * The per-key rate and concurrency limits of the API, with their answers: the IETF RateLimit and
 * RateLimit-Policy fields (draft-ietf-httpapi-ratelimit-headers-10: structured-field lists, policy
 * items `q` quota, `w` window in seconds, `qu` quota unit; current items `r` remaining, `t` seconds
 * until the quota is whole again) on every limited answer, and 429 `rate_limited` with Retry-After
 * when a limit refuses a request. The fields are sent once a key has used more than half of a limit (fewer
 * than half its bucket's tokens left, or more than half its slots of a group taken) and on every 429: the draft lets a server
 * leave them out, and a client well within its limits then pays nothing for them (two header fields cost
 * several times what the bucket itself costs, on every request).
 */
export class RequestLimits {
  private readonly buckets: TokenBuckets | null;
  private readonly caps: Record<ConcurrencyGroup, ConcurrencyCaps> = { search: new ConcurrencyCaps(), text: new ConcurrencyCaps() };
  private readonly ratePolicy: string;
  private readonly halfBurst: number;

  constructor(readonly config: RequestLimitsConfig, now: () => number = Date.now) {
    this.buckets = config.ratePerSecond > 0 && config.burst > 0 ? new TokenBuckets(config.ratePerSecond, Math.max(1, Math.floor(config.burst)), now) : null;
    // The window is how long an empty bucket takes to fill: `q` requests per `w` seconds, on average.
    this.ratePolicy = this.buckets ? `"${RATE_POLICY}";q=${this.buckets.burst};w=${Math.max(1, Math.ceil(this.buckets.burst / this.buckets.rate))}` : '';
    this.halfBurst = this.buckets ? this.buckets.burst / 2 : 0;
  }

  /** Takes one token of the key's bucket, or throws the 429; sets the RateLimit fields past half the bucket. */
  admit(key: string, res: ServerResponse): void {
    const buckets = this.buckets;
    if (!buckets) return;
    const { allowed, tokens } = buckets.take(key);
    if (allowed && tokens >= this.halfBurst) return;
    res.setHeader('RateLimit-Policy', this.ratePolicy);
    res.setHeader('RateLimit', `"${RATE_POLICY}";r=${Math.floor(tokens)};t=${buckets.secondsUntil(tokens, buckets.burst)}`);
    if (!allowed) throw rateLimited(`This API key sent more than ${buckets.rate} requests per second (bucket of ${buckets.burst}); retry after the Retry-After delay.`, buckets.secondsUntil(tokens, 1));
  }

  /**
   * Takes one of the key's slots of the group, or throws the 429 (no slot taken). A true answer must be
   * matched by one leave(); false means the group has no cap and nothing was taken.
   */
  enter(group: ConcurrencyGroup, key: string, res: ServerResponse): boolean {
    const cap = this.config.concurrency[group];
    if (!(cap > 0)) return false;
    const caps = this.caps[group];
    const entered = caps.enter(key, cap);
    const held = caps.held(key);
    if (entered && held * 2 <= cap) return true;
    const policy = `"${group}";q=${cap};qu="concurrent-requests"`;
    const current = `"${group}";r=${cap - held}`;
    // After the key's bucket fields when admit() set them.
    const rate = res.getHeader('RateLimit');
    res.setHeader('RateLimit-Policy', typeof rate === 'string' ? `${this.ratePolicy}, ${policy}` : policy);
    res.setHeader('RateLimit', typeof rate === 'string' ? `${rate}, ${current}` : current);
    if (!entered) throw rateLimited(`This API key already has ${cap} ${group} requests in flight; retry when one has finished.`, 1);
    return true;
  }

  leave(group: ConcurrencyGroup, key: string): void {
    this.caps[group].leave(key);
  }
}

function rateLimited(message: string, retryAfterSeconds: number): AppError {
  return new AppError(429, 'rate_limited', message, [], {}, { 'Retry-After': String(retryAfterSeconds) });
}
