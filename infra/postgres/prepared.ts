import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';

/** Statements one connection keeps prepared; beyond this, new shapes run unnamed (no server memory grows). */
const MAX_PREPARED_PER_CONNECTION = 200;
const preparedOn = new WeakMap<pg.Client, Set<string>>();

/**
 * Runs a knex-built statement as a named prepared statement on a pooled connection. On a hot list
 * endpoint the planner is most of Postgres's time (about 1 ms to plan a page against a dozen candidate
 * indexes, against 0.1-0.5 ms to read it); a prepared statement is parsed once per connection and,
 * once Postgres finds its generic plan as good as the custom ones, not planned again. Statements are
 * named by a hash of their text, so each distinct filter combination gets its own.
 */
export async function queryPrepared<T>(knex: Knex, query: Knex.QueryBuilder): Promise<T[]> {
  const { sql, bindings } = query.toSQL().toNative();
  const conn = (await knex.client.acquireConnection()) as pg.Client;
  try {
    let names = preparedOn.get(conn);
    if (!names) preparedOn.set(conn, (names = new Set()));
    const name = `ifrs_${crypto.createHash('sha1').update(sql).digest('base64url').slice(0, 20)}`;
    if (!names.has(name) && names.size < MAX_PREPARED_PER_CONNECTION) names.add(name);
    const res = await conn.query<T & pg.QueryResultRow>(names.has(name) ? { name, text: sql, values: bindings as unknown[] } : { text: sql, values: bindings as unknown[] });
    return res.rows;
  } finally {
    await knex.client.releaseConnection(conn);
  }
}
