import { ident } from '../../infra/postgres/sql-ident';
import type { SqlParams } from './sql-params';

export interface SortKey {
  column: string;
  desc: boolean;
}

/** Position after the last row of a page: its sort values and id. */
export interface KeysetPosition {
  v: (string | null)[];
  id: string;
}

/** ORDER BY for the keys, nulls last in both directions, id ascending as the tie-break. */
export function orderBySql(keys: SortKey[]): string {
  let sql = ' order by ';
  for (const k of keys) sql += `${ident(k.column)} ${k.desc ? 'desc' : 'asc'} nulls last, `;
  return `${sql}"id" asc`;
}

/** One branch of "after a position": a conjunction of plain predicates, so one index range answers it. */
export type KeysetBranch = (p: SqlParams) => string[];

/**
 * Rows strictly after `pos` in that order, as disjoint branches whose union is exactly the rest of the
 * order: for each key i, the rows equal on keys before i and strictly after on key i (a smaller/greater
 * value, or null, since nulls sort last), then the rows equal on every key with a greater id. Per key,
 * so it stays exact with nulls (which sort last and equal each other) and with rows inserted since the
 * previous page: a live keyset gives no duplicates and no gaps, unlike an offset.
 *
 * Branches rather than one OR: an OR of ranges cannot bound an index scan, so a single query walks the
 * index from its start and filters (page 10,000 of the default list read 500,000 index entries); each
 * branch is an index range in the list's order, and their UNION ALL under the page's ORDER BY ... LIMIT
 * is a Merge Append that reads about one page from each.
 */
export function afterBranches(keys: SortKey[], pos: KeysetPosition): KeysetBranch[] {
  const branches: KeysetBranch[] = [];
  // "Equal" as a closed range, not `=`: Postgres treats a column equal to a constant as already sorted
  // and drops it from the branch's order, so the Merge Append above has to Sort the branch's rows again
  // (a third of a deep page's SQL time at 1,000,000 filings); a range keeps the index order usable as is.
  const equalBefore = (i: number) => (p: SqlParams) => {
    const predicates: string[] = [];
    for (let j = 0; j < i; j++) {
      if (pos.v[j] === null) predicates.push(`${ident(keys[j].column)} is null`);
      else predicates.push(p.compare(keys[j].column, '>=', pos.v[j]), p.compare(keys[j].column, '<=', pos.v[j]));
    }
    return predicates;
  };
  for (let i = 0; i < keys.length; i++) {
    // Nothing sorts after a null within its key: those branches are empty.
    if (pos.v[i] === null) continue;
    const k = keys[i];
    const v = pos.v[i];
    const prefix = equalBefore(i);
    branches.push((p) => [...prefix(p), p.compare(k.column, k.desc ? '<' : '>', v)]);
    branches.push((p) => [...prefix(p), `${ident(k.column)} is null`]);
  }
  const all = equalBefore(keys.length);
  branches.push((p) => [...all(p), p.compare('id', '>', pos.id)]);
  return branches;
}
