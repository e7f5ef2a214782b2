/** Who sent a request with an Idempotency-Key: keys of different callers never meet. */
export interface IdempotencyCaller {
  tenantId: string;
  /** The user behind the API key: a retry after a key rotation still finds its first answer. */
  userId: string;
}

/** A first answer kept for replay. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  /** The JSON body as sent, or null for an answer without a body. */
  body: string | null;
}

export type IdempotencyClaim =
  /** This request owns the key now: run it, then `complete` or `release`. */
  | { kind: 'claimed' }
  /** The key's first request finished: answer with this. */
  | { kind: 'replay'; answer: StoredAnswer }
  /** The key was first used with another request (method, path or body). */
  | { kind: 'mismatch' }
  /** The key's first request is still running (or its host died less than a lease ago). */
  | { kind: 'in_flight' };

/**
 * The Stripe convention for safe retries, shared by every API host: a key is claimed by its first request
 * for a lease, its answer is kept for the retention time, and a claim whose holder vanished (a host killed
 * mid-request) can be taken over once its lease ran out.
 */
export interface IdempotencyStore {
  claim(caller: IdempotencyCaller, key: string, fingerprint: string): Promise<IdempotencyClaim>;
  complete(caller: IdempotencyCaller, key: string, fingerprint: string, answer: StoredAnswer): Promise<void>;
  /** Gives a claimed key up without an answer (the request failed): a retry runs the request again. */
  release(caller: IdempotencyCaller, key: string, fingerprint: string): Promise<void>;
}
