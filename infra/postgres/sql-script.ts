import type { Knex } from 'knex';
import type pg from 'pg';
import { statementNamer, withConnection } from './prepared';

/** A statement with `$n` placeholders and its values (projections/batch-sql.ts builds them for projectors). */
export interface SqlStatement {
  text: string;
  values: unknown[];
  /** The text is fixed (it does not vary with the data): runScript runs it as a statement prepared once per connection. */
  reuse?: boolean;
}

/**
 * A string literal, as pg's escapeLiteral writes it (backslashes doubled in an E'' literal, so the text
 * reads the same whatever standard_conforming_strings says), with native replaces instead of its
 * character loop: a batch's rows are kilobytes of JSON.
 */
function quote(s: string): string {
  const q = s.replaceAll("'", "''");
  return s.includes('\\') ? ` E'${q.replaceAll('\\', '\\\\')}'` : `'${q}'`;
}

/**
 * A value written into SQL text: only the kinds projectors' statements bind (text, JSON text, numbers,
 * booleans, null, and arrays of those), so nothing is ever written in a form whose type Postgres would
 * read differently from a bound parameter's.
 */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return quote(v);
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot write ${v} into SQL`);
    return v < 0 ? `(${v})` : String(v);
  }
  if (typeof v === 'bigint') return v < 0n ? `(${v})` : v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (Array.isArray(v)) return v.length ? `array[${v.map(literal).join(', ')}]` : `'{}'`;
  throw new Error(`cannot write a ${typeof v} into SQL: bind strings (JSON as text), numbers, booleans or null`);
}

/**
 * The statement with its values written in as literals, for a multi-statement query (the simple
 * protocol has no parameters). `$n` must only appear as placeholders in the text.
 */
export function inlineStatement(st: SqlStatement): string {
  return st.text.replace(/\$(\d+)/g, (_, n: string) => {
    const i = Number(n) - 1;
    if (i >= st.values.length) throw new Error(`statement has no value for $${n}`);
    return literal(st.values[i]);
  });
}

/** Per connection, the statements runScript prepared on it (by SQL PREPARE: pg's own record does not know them). */
const preparedOn = new WeakMap<pg.ClientBase, Set<string>>();
/** A name for a reusable statement's text, apart from the names queryPreparedSql's statements take. */
const scriptName = statementNamer('ifrs_script_');

/** EXECUTE of a prepared statement with the values written in. */
function executeStatement(name: string, values: unknown[]): string {
  return values.length ? `execute ${name}(${values.map(literal).join(', ')})` : `execute ${name}`;
}

/**
 * Several statements as ONE query of the simple protocol: one round trip, and Postgres runs them as one
 * implicit transaction (an error in any rolls back all and skips the rest). The simple protocol plans
 * every statement it runs, which cost more than executing a batch's writes, so statements marked
 * `reuse` are prepared once per connection (in a round trip of their own, the first time: a PREPARE is
 * not undone by a rollback, so one inside a failing script would leave this record wrong) and executed
 * with their generic plan (`plan_cache_mode` for this transaction only: their plans do not depend on
 * the values, which are JSON documents and positions). Answers each statement's result, in order.
 */
export async function runScript(db: Knex, statements: SqlStatement[]): Promise<pg.QueryResult[]> {
  return withConnection(db, async (conn) => {
    let prepared = preparedOn.get(conn);
    if (!prepared) preparedOn.set(conn, (prepared = new Set()));
    const missing = new Map<string, string>();
    const parts: string[] = [];
    let reused = false;
    for (const st of statements) {
      if (!st.reuse) {
        parts.push(inlineStatement(st));
        continue;
      }
      const name = scriptName(st.text);
      if (!prepared.has(name)) missing.set(name, st.text);
      parts.push(executeStatement(name, st.values));
      reused = true;
    }
    if (missing.size) {
      try {
        await conn.query([...missing].map(([name, text]) => `prepare ${name} as ${text}`).join(';\n'));
      } catch (e) {
        // Those before the failing one were prepared: learn which from the server.
        const rows = (await conn.query<{ name: string }>(`select name from pg_prepared_statements where name like 'ifrs\\_script\\_%'`)).rows;
        preparedOn.set(conn, new Set(rows.map((r) => r.name)));
        throw e;
      }
      for (const name of missing.keys()) prepared.add(name);
    }
    if (reused) parts.unshift(`select set_config('plan_cache_mode', 'force_generic_plan', true)`);
    const results = (await conn.query(parts.join(';\n'))) as unknown as pg.QueryResult | pg.QueryResult[];
    // One result per statement (pg gives a lone statement's result bare), without the set_config's.
    const all = Array.isArray(results) ? results : [results];
    return reused ? all.slice(1) : all;
  });
}
