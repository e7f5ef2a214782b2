import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Leader election for "one active process per name": a Postgres session advisory lock held on one
 * pooled connection. If the holder dies its connection closes and the lock frees itself.
 */
export class SessionLock {
  private conn: { query(sql: string, params?: unknown[]): Promise<{ rows: { ok: boolean }[] }> } | null = null;
  private readonly key: number;

  constructor(private readonly knex: Knex, name: string) {
    this.key = crypto.createHash('sha256').update(name).digest().readInt32BE(0);
  }

  get held(): boolean {
    return this.conn !== null;
  }

  async tryAcquire(): Promise<boolean> {
    // The lock lives only as long as its session: after a Postgres restart, or a session the server ended
    // while this host was cut off, it is gone and another process may hold it. Taking that for granted
    // made two relays active at once (and kept the old connection out of the pool for good).
    if (this.conn && (await this.check())) return true;
    const c = await this.knex.client.acquireConnection();
    try {
      const ok = (await c.query('select pg_try_advisory_lock($1) as ok', [this.key])).rows[0].ok;
      if (ok) {
        this.conn = c;
        return true;
      }
    } catch (e) {
      await this.knex.client.releaseConnection(c);
      throw e;
    }
    await this.knex.client.releaseConnection(c);
    return false;
  }

  /** Still holding it? (The lock's connection may have been cut.) */
  async check(): Promise<boolean> {
    if (!this.conn) return false;
    try {
      await this.conn.query('select 1');
      return true;
    } catch {
      const c = this.conn;
      this.conn = null;
      await this.knex.client.releaseConnection(c).catch(() => undefined);
      return false;
    }
  }

  async release(): Promise<void> {
    const c = this.conn;
    if (!c) return;
    this.conn = null;
    await c.query('select pg_advisory_unlock($1)', [this.key]).catch(() => undefined);
    await this.knex.client.releaseConnection(c);
  }
}
