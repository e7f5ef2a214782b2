import type { Knex } from 'knex';

type Conn = { query(sql: string, params?: unknown[]): Promise<{ rows: { ok: boolean }[] }> };

/**
 * Runs fn while holding a shared session advisory lock on one pooled connection. Session level, not
 * transaction level: fn may run many transactions, and a process killed meanwhile drops the lock with
 * its connection.
 */
export async function withSharedAdvisoryLock<T>(knex: Knex, key: number, fn: () => Promise<T>): Promise<T> {
  const conn = (await knex.client.acquireConnection()) as Conn;
  try {
    await conn.query('select pg_advisory_lock_shared($1)', [key]);
    try {
      return await fn();
    } finally {
      await conn.query('select pg_advisory_unlock_shared($1)', [key]);
    }
  } finally {
    await knex.client.releaseConnection(conn);
  }
}

/**
 * Runs fn only if the exclusive session advisory lock is free at once (nobody holds it shared or
 * exclusively); returns whether fn ran.
 */
export async function ifAdvisoryLockFree(knex: Knex, key: number, fn: () => Promise<void>): Promise<boolean> {
  const conn = (await knex.client.acquireConnection()) as Conn;
  try {
    if (!(await conn.query('select pg_try_advisory_lock($1) as ok', [key])).rows[0].ok) return false;
    try {
      await fn();
      return true;
    } finally {
      await conn.query('select pg_advisory_unlock($1)', [key]);
    }
  } finally {
    await knex.client.releaseConnection(conn);
  }
}
