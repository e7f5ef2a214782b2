import type { Knex } from 'knex';
import { runStatement } from '../infra/postgres/prepared';
import { ident } from '../infra/postgres/sql-ident';
import type { SqlStatement } from '../infra/postgres/sql-script';

export type { SqlStatement };

/**
 * Multi-row writes for projectors: a whole batch of rows travels as ONE JSON parameter and Postgres
 * unpacks it with json_populate_recordset against the target table's own row type. One statement and
 * one bind value per batch (no 65,535-parameter limit, no per-row query building in knex), and array,
 * jsonb and date columns convert from their JSON forms without per-type casts.
 *
 * Rows must carry every column they write (a missing key is NULL, not the column default) and each
 * conflict key at most once per statement (Postgres refuses to update a row twice in one statement):
 * fold a batch per key first, see `lastByKey`.
 */
export interface UpsertOptions {
  /** The conflict target; omit for a plain insert. */
  conflict?: readonly string[];
  /** On conflict: 'ignore', or the columns to overwrite (default: every written column but the key). */
  update?: 'ignore' | readonly string[];
  /** Overwrite only rows whose value in this column is below the incoming one (stream versions). */
  newerBy?: string;
  /** Columns to return from the inserted or updated rows. */
  returning?: readonly string[];
}

export async function upsertRows<R extends object>(
  trx: Knex.Transaction,
  table: string,
  rows: readonly R[],
  opts: UpsertOptions = {},
): Promise<Record<string, unknown>[]> {
  const st = upsertStatement(table, rows, opts);
  if (!st) return [];
  return runStatement<Record<string, unknown>>(trx, st);
}

/** upsertRows' statement, to run later or together with others (null for no rows). `$1` is the rows' JSON. */
export function upsertStatement<R extends object>(table: string, rows: readonly R[], opts: UpsertOptions = {}): SqlStatement | null {
  if (!rows.length) return null;
  const columns = Object.keys(rows[0]);
  const cols = columns.map(ident).join(', ');
  let sql = `insert into ${ident(table)} as t (${cols}) select ${cols} from json_populate_recordset(null::${ident(table)}, $1::json)`;
  if (opts.conflict) {
    sql += ` on conflict (${opts.conflict.map(ident).join(', ')})`;
    if (opts.update === 'ignore') sql += ' do nothing';
    else {
      const set = (opts.update ?? columns.filter((c) => !opts.conflict!.includes(c))).map((c) => `${ident(c)} = excluded.${ident(c)}`);
      sql += ` do update set ${set.join(', ')}`;
      if (opts.newerBy) sql += ` where t.${ident(opts.newerBy)} < excluded.${ident(opts.newerBy)}`;
    }
  }
  if (opts.returning?.length) sql += ` returning ${opts.returning.map((c) => `t.${ident(c)}`).join(', ')}`;
  // Fixed for a table and a row shape: a projector's rows always carry the same columns.
  return { text: sql, values: [JSON.stringify(rows)], reuse: true };
}

/**
 * The last value per key, in the order each key was LAST seen: what sequential application leaves
 * behind when every write of a key overwrites the whole row (snapshot events).
 */
export function lastByKey<T>(items: Iterable<T>, key: (item: T) => string): T[] {
  const m = new Map<string, T>();
  for (const item of items) {
    const k = key(item);
    m.delete(k);
    m.set(k, item);
  }
  return [...m.values()];
}
