import type { Knex } from 'knex';
import { runStatement, withConnection } from '../infra/postgres/prepared';
import type { SqlStatement } from './batch-sql';

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

/** The statements one after another on `db` (a transaction: they commit or roll back with it). */
export async function runStatements(db: Knex | Knex.Transaction, statements: SqlStatement[]): Promise<void> {
  for (const st of statements) await runStatement(db, st);
}

/**
 * Several statements as ONE query of the simple protocol: one round trip, and Postgres runs them as one
 * implicit transaction (an error in any rolls back all and skips the rest).
 */
export async function runScript(db: Knex, statements: SqlStatement[]): Promise<void> {
  const text = statements.map(inlineStatement).join(';\n');
  await withConnection(db, (conn) => conn.query(text));
}
