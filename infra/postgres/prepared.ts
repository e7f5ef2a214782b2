import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import { retire } from './retired-connections';
import type { Sql } from './sql';
import { cancelledOnAbort } from './statement-cancel';

interface ConnectionSource {
  acquireConnection(): Promise<pg.ClientBase>;
  releaseConnection(c: pg.ClientBase): Promise<void>;
}

/**
 * Lends `fn` a `pg` connection of `db`: a pooled one, or the transaction's own one inside a
 * transaction (knex's transaction client hands out its connection), so statements inside and outside
 * transactions share one path.
 */
export async function withConnection<T>(db: Knex | Knex.Transaction, fn: (conn: pg.ClientBase) => Promise<T>): Promise<T> {
  const client = db.client as ConnectionSource;
  const conn = await client.acquireConnection();
  try {
    return await fn(conn);
  } finally {
    await client.releaseConnection(conn);
  }
}

/**
 * Runs one statement straight on a `pg` connection of `db`, skipping knex's query building, which
 * cost more node CPU than the driver itself on the event store's hot statements. With a `name`,
 * Postgres parses and plans the statement once per connection: only for statements whose plan does
 * not depend on the parameters' values (a generic plan would be wrong for, say, a type filter of
 * varying selectivity).
 */
export async function runStatement<R extends object>(db: Knex | Knex.Transaction, query: Sql | { name?: string; text: string; values: unknown[] }, signal?: AbortSignal): Promise<R[]> {
  // A plain config: pg reads the statement's fields, and a Sql's text is a getter.
  const config = { name: 'name' in query ? query.name : undefined, text: query.text, values: query.values };
  return withConnection(db, async (conn) => (await cancelledOnAbort(conn, signal, () => conn.query<R & pg.QueryResultRow>(config))).rows);
}

/**
 * Statements one connection keeps prepared. A connection that holds this many prepares no more: it runs
 * new statements unnamed and is retired, so the pool lends a fresh connection in its place at its next loan
 * (statements that write values into their text, such as the catalog list's date bounds, are unbounded in
 * number). The server's memory per connection stays bounded, and the hot statements are prepared again on
 * the fresh one, without reaching into pg's own record of what it prepared.
 */
export const MAX_PREPARED_PER_CONNECTION = 200;
/** Per connection, the names of the statements it prepared. */
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>();

/** Statement texts named per namer: a page's SQL repeats, and hashing it was per-request CPU. */
const NAMES_KEPT = 1_000;

/**
 * Names statement texts by a hash of the text under `prefix` (a plain identifier, so SQL PREPARE may use
 * it unquoted), remembering the names of the texts seen lately.
 */
export function statementNamer(prefix: string): (sql: string) => string {
  const nameOf = new Map<string, string>();
  return (sql) => {
    let name = nameOf.get(sql);
    if (name === undefined) {
      name = `${prefix}${crypto.createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
      // Forgetting all at once is fine: a forgotten text is hashed again to the same name.
      if (nameOf.size >= NAMES_KEPT) nameOf.clear();
      nameOf.set(sql, name);
    }
    return name;
  };
}

/** Protocol-level prepared statements' names (runScript's SQL PREPAREs use another prefix: one namespace per session). */
const statementName = statementNamer('ifrs_');

/**
 * Runs a knex-built statement as a named prepared statement on a pooled connection. On a hot list
 * endpoint the planner is most of Postgres's time (about 1 ms to plan a page against a dozen candidate
 * indexes, against 0.1-0.5 ms to read it); a prepared statement is parsed once per connection and,
 * once Postgres finds its generic plan as good as the custom ones, not planned again. Statements are
 * named by a hash of their text, so each distinct filter combination gets its own.
 */
export async function queryPrepared<T>(knex: Knex, query: Knex.QueryBuilder | Knex.Raw, signal?: AbortSignal): Promise<T[]> {
  const { sql, bindings } = query.toSQL().toNative();
  return queryPreparedSql<T>(knex, sql, bindings as unknown[], signal);
}

/**
 * As queryPrepared, for a statement of the sql tag (sql.ts), or SQL already written with `$n` placeholders
 * and its values. `signal`: the request's, whose abort (its client went away) cancels the statement
 * (statement-cancel.ts).
 */
export async function queryPreparedSql<T>(knex: Knex, statement: Sql, signal?: AbortSignal): Promise<T[]>;
export async function queryPreparedSql<T>(knex: Knex, sql: string, values: unknown[], signal?: AbortSignal): Promise<T[]>;
export async function queryPreparedSql<T>(knex: Knex, statement: Sql | string, valuesOrSignal?: unknown[] | AbortSignal, signalArg?: AbortSignal): Promise<T[]> {
  const text = typeof statement === 'string' ? statement : statement.text;
  const values = typeof statement === 'string' ? (valuesOrSignal as unknown[]) : statement.values;
  const signal = typeof statement === 'string' ? signalArg : (valuesOrSignal as AbortSignal | undefined);
  return withConnection(knex, async (conn) => {
    let names = preparedOn.get(conn);
    if (!names) preparedOn.set(conn, (names = new Set()));
    const name = statementName(text);
    let named = names.has(name);
    if (!named && names.size < MAX_PREPARED_PER_CONNECTION) {
      names.add(name);
      named = true;
    } else if (!named) {
      retire(conn);
    }
    const res = await cancelledOnAbort(conn, signal, () => conn.query<T & pg.QueryResultRow>(named ? { name, text, values } : { text, values }));
    return res.rows;
  });
}
