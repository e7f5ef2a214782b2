import { raw, sql, type Sql } from '../../infra/postgres/sql';
import { ident } from '../../infra/postgres/sql-ident';

export interface SortKey {
  column: string;
  desc: boolean;
  /** The column may be null (a NOT NULL column has no `is null` branch, and its nulls placement is free). */
  nullable: boolean;
  /**
   * The direction an index of catalog_filings lists the column in, nulls last (projections/catalog/catalog-projector.ts
   * createIndexes), or both when it has one index each way. Read backward, an index gives the other direction with
   * nulls first: that is how a sort the other way reads it (see branchOrderSql).
   */
  indexed: 'asc' | 'desc' | 'both';
}

/** Position after the last row of a page: its sort values and id. */
export interface KeysetPosition {
  v: (string | null)[];
  id: string;
}

/**
 * What a branch's predicates hold of a key: nothing (`any`), not null (`nonNull`: a strict comparison, or
 * `is not null`), or one value for every row of the branch (`constant`: null, or equal to the position's value).
 */
export type KeyHolds = 'any' | 'nonNull' | 'constant';

/** Whether the key's direction is one its index reads forward, nulls last as the spec orders them. */
function forward(k: SortKey): boolean {
  return k.indexed === 'both' || k.indexed === (k.desc ? 'desc' : 'asc');
}

/**
 * ORDER BY of one branch, in the spec's order of the branch's rows (nulls last in both directions, id ascending
 * breaks ties) but written as an index gives it, since Postgres matches an index to an ORDER BY only with the same
 * direction and nulls placement per column. A key read backward (`-companyName` over `(company_name, ...)`,
 * ascending dates over `(date desc nulls last, id)`) comes nulls first: exactly the spec's order where the key is
 * never null (a NOT NULL column, or a branch of the non-null rows). A nullable key with one value in the branch is
 * written in its index's own direction (equal values: any order is the same), so the columns after it in the index
 * (the id) are read in order too. Only a nullable key that may be null in the branch keeps the spec's `nulls last`
 * against its index: the first page of such a sort is split by `pageBranches` instead.
 */
export function branchOrderSql(keys: readonly SortKey[], holds: readonly KeyHolds[]): string {
  let sql = ' order by ';
  for (let i = 0; i < keys.length; i++) {
    const k = keys[i];
    const direction = k.desc ? 'desc' : 'asc';
    let term: string;
    if (forward(k)) term = `${direction} nulls last`;
    else if (k.nullable && holds[i] === 'constant') term = `${k.indexed} nulls last`;
    else if (k.nullable && holds[i] === 'any') term = `${direction} nulls last`;
    else term = `${direction} nulls first`;
    sql += `${ident(k.column)} ${term}, `;
  }
  return `${sql}"id" asc`;
}

/** ORDER BY of the whole page: the spec's order (the nulls of a NOT NULL key placed as its index reads). */
export function orderBySql(keys: readonly SortKey[]): string {
  return branchOrderSql(keys, keys.map(() => 'any'));
}

/** One branch of a page: a conjunction of plain predicates, so one index range answers it, and its ORDER BY. */
export interface KeysetBranch {
  where: () => Sql[];
  order: string;
}

/**
 * The branches of a page, disjoint and together exactly the rows it pages through: after a position, the
 * keyset's (afterBranches); for the first page, all rows, split in two when the first key may be null and is read
 * backward from its index (its non-null rows nulls first, then its null rows in the index's order), since no
 * index gives that key nulls last.
 */
export function pageBranches(keys: readonly SortKey[], after: KeysetPosition | null): KeysetBranch[] {
  if (after) return afterBranches(keys, after);
  const first = keys[0];
  if (forward(first) || !first.nullable) return [{ where: () => [], order: orderBySql(keys) }];
  const rest = keys.slice(1).map((): KeyHolds => 'any');
  const column = ident(first.column);
  return [
    { where: () => [raw(`${column} is not null`)], order: branchOrderSql(keys, ['nonNull', ...rest]) },
    { where: () => [raw(`${column} is null`)], order: branchOrderSql(keys, ['constant', ...rest]) },
  ];
}

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
export function afterBranches(keys: readonly SortKey[], pos: KeysetPosition): KeysetBranch[] {
  const branches: KeysetBranch[] = [];
  // "Equal" as a closed range, not `=`: Postgres treats a column equal to a constant as already sorted
  // and drops it from the branch's order, so the Merge Append above has to Sort the branch's rows again
  // (a third of a deep page's SQL time at 1,000,000 filings); a range keeps the index order usable as is.
  const equalBefore = (i: number) => () => {
    const predicates: Sql[] = [];
    for (let j = 0; j < i; j++) {
      const column = raw(ident(keys[j].column));
      if (pos.v[j] === null) predicates.push(sql`${column} is null`);
      else predicates.push(sql`${column} >= ${pos.v[j]}`, sql`${column} <= ${pos.v[j]}`);
    }
    return predicates;
  };
  const holds = (i: number, key: KeyHolds) => keys.map((_, j): KeyHolds => (j < i ? 'constant' : j === i ? key : 'any'));
  for (let i = 0; i < keys.length; i++) {
    // Nothing sorts after a null within its key: those branches are empty.
    if (pos.v[i] === null) continue;
    const k = keys[i];
    const v = pos.v[i];
    const prefix = equalBefore(i);
    const column = raw(ident(k.column));
    const after = raw(k.desc ? '<' : '>');
    branches.push({ where: () => [...prefix(), sql`${column} ${after} ${v}`], order: branchOrderSql(keys, holds(i, 'nonNull')) });
    if (k.nullable) branches.push({ where: () => [...prefix(), sql`${column} is null`], order: branchOrderSql(keys, holds(i, 'constant')) });
  }
  const all = equalBefore(keys.length);
  branches.push({ where: () => [...all(), sql`"id" > ${pos.id}`], order: branchOrderSql(keys, holds(keys.length, 'constant')) });
  return branches;
}
