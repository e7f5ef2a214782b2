interface Entry<V> {
  value: V;
  /** Never served after this: the bound on how long a revoked key keeps working. */
  expires: number;
  refreshing: boolean;
}

/**
 * A short-lived cache of API key answers. Two things keep an expiry from showing in the latency tail:
 * concurrent misses for one key share a single look-up (every connection of a busy client used to
 * miss at the same instant and queue one query each), and an entry in the second half of its life is
 * refreshed in the background while the still-valid answer is served. An answer is never served
 * more than `ttlMs` after its look-up started, so revocation still takes effect within `ttlMs`.
 */
export class KeyCache<V> {
  private readonly entries = new Map<string, Entry<V>>();
  private readonly inFlight = new Map<string, Promise<V>>();

  constructor(
    private readonly load: (key: string) => Promise<V>,
    private readonly ttlMs: number,
    private readonly maxEntries: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | Promise<V> {
    const now = this.now();
    const hit = this.entries.get(key);
    if (hit && hit.expires > now) {
      if (!hit.refreshing && hit.expires - now < this.ttlMs / 2) {
        hit.refreshing = true;
        // A failed refresh leaves the entry to expire; the next miss reports the error to its caller.
        this.fetch(key).catch(() => undefined);
      }
      return hit.value;
    }
    return this.inFlight.get(key) ?? this.fetch(key);
  }

  private fetch(key: string): Promise<V> {
    const started = this.now();
    const p = this.load(key).then(
      (value) => {
        this.inFlight.delete(key);
        if (this.entries.size >= this.maxEntries && !this.entries.has(key)) this.entries.clear();
        this.entries.set(key, { value, expires: started + this.ttlMs, refreshing: false });
        return value;
      },
      (e: unknown) => {
        this.inFlight.delete(key);
        throw e;
      },
    );
    this.inFlight.set(key, p);
    return p;
  }
}
