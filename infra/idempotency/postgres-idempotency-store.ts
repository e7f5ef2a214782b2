import type { Knex } from 'knex';
import type { IdempotencyCaller, IdempotencyClaim, IdempotencyStore, StoredAnswer } from '../../src/ports/idempotency-store';

export interface PostgresIdempotencyOptions {
  /** How long a first answer is replayed (Stripe: 24 hours). */
  retentionMs?: number;
  /** How long a claim holds before another host may take it over (its holder is presumed dead). */
  leaseMs: number;
  /** One in this many completions also deletes a bounded batch of expired keys. */
  cleanupEvery?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const CLEANUP_BATCH = 500;

/**
 * Idempotency keys in the shared Postgres (table idempotency_keys), so a retry sent to another API host
 * finds the first answer. A claim is one statement: the insert takes a free key, or an expired one, or one
 * whose holder's lease ran out with the same request; anything else is read back to tell the caller why not.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  private readonly retentionMs: number;
  private readonly cleanupEvery: number;
  private completions = 0;

  constructor(
    private readonly knex: Knex,
    private readonly options: PostgresIdempotencyOptions,
  ) {
    this.retentionMs = options.retentionMs ?? DAY_MS;
    this.cleanupEvery = options.cleanupEvery ?? 100;
  }

  async claim(caller: IdempotencyCaller, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    // A released key vanishes between the failed insert and the read: try again (bounded; a key cannot churn for long).
    for (let attempt = 0; attempt < 5; attempt++) {
      const claimed = await this.knex.raw(
        `insert into idempotency_keys as k (tenant_id, user_id, key, fingerprint, locked_until, expires_at)
         values (?, ?, ?, ?, now() + make_interval(secs => ?), now() + make_interval(secs => ?))
         on conflict (tenant_id, user_id, key) do update
           set fingerprint = excluded.fingerprint, status = null, headers = null, body = null,
               locked_until = excluded.locked_until, expires_at = excluded.expires_at
           where k.expires_at <= now() or (k.status is null and k.locked_until <= now() and k.fingerprint = excluded.fingerprint)
         returning 1`,
        [caller.tenantId, caller.userId, key, fingerprint, this.options.leaseMs / 1000, this.retentionMs / 1000],
      );
      if (claimed.rows.length) return { kind: 'claimed' };
      const row = await this.knex('idempotency_keys')
        .where({ tenant_id: caller.tenantId, user_id: caller.userId, key })
        .first<{ fingerprint: string; status: number | null; headers: Record<string, string> | null; body: string | null } | undefined>('fingerprint', 'status', 'headers', 'body');
      if (!row) continue;
      if (row.fingerprint !== fingerprint) return { kind: 'mismatch' };
      if (row.status === null) return { kind: 'in_flight' };
      return { kind: 'replay', answer: { status: row.status, headers: row.headers ?? {}, body: row.body } };
    }
    return { kind: 'in_flight' };
  }

  async complete(caller: IdempotencyCaller, key: string, fingerprint: string, answer: StoredAnswer): Promise<void> {
    await this.knex('idempotency_keys')
      .where({ tenant_id: caller.tenantId, user_id: caller.userId, key, fingerprint })
      .whereNull('status')
      .update({ status: answer.status, headers: JSON.stringify(answer.headers), body: answer.body, locked_until: null });
    if (++this.completions % this.cleanupEvery === 0) await this.purgeExpired();
  }

  async release(caller: IdempotencyCaller, key: string, fingerprint: string): Promise<void> {
    await this.knex('idempotency_keys').where({ tenant_id: caller.tenantId, user_id: caller.userId, key, fingerprint }).whereNull('status').delete();
  }

  /** Deletes a bounded batch of expired keys (found through the expires_at index), so no call pays for a backlog. */
  async purgeExpired(): Promise<number> {
    const r = await this.knex.raw(
      `delete from idempotency_keys where ctid in (select ctid from idempotency_keys where expires_at <= now() limit ${CLEANUP_BATCH})`,
    );
    return r.rowCount ?? 0;
  }
}
