import { CATALOG_FILINGS } from '../../src/read-models/catalog';
import type { CatalogFilter } from './catalog-filters';
import { orderBySql, pageBranches, type KeysetPosition, type SortKey } from './keyset';
import { join, raw, sql, where, type Sql } from '../../infra/postgres/sql';
import { ident } from '../../infra/postgres/sql-ident';

/** Beyond this many UNION ALL branches, planning the page costs more than the per-name ranges save. */
const MAX_NAME_BRANCHES = 48;

const FROM_FILINGS = ` from ${ident(CATALOG_FILINGS)}`;

/** A statement with `$n` placeholders (`text`) and its `values`, as pg runs it. */
export type CatalogListStatement = Sql;

/**
 * The SQL of one catalog list page: the endpoint runs it, the query-plan test EXPLAINs it and the
 * benchmark runs it directly with pg. After a position, each keyset branch is its own SELECT with the
 * filters, the page's order as its index reads it and the LIMIT (so Postgres plans each as a bounded index
 * range: without its own LIMIT a branch is planned for all its rows and gets a sequential scan and a sort),
 * and the outer ORDER BY ... LIMIT merges them: a Merge Append that pulls about one page in all where the
 * branches' orders are the page's, a Sort of their rows (a page each at most) where a key is read backward
 * (see keyset.ts). The first page of such a sort is two branches, its non-null and its null rows.
 *
 * The page size is written into the SQL, not bound: with `limit $n` the planner costs a generic plan
 * for an unknown row count, finds it far dearer than the custom ones and never settles on it, so every
 * execution of the prepared statement was planned again (0.1-2 ms against 14 indexes). It is a
 * validated integer (1-200, plus one), so few statements result.
 *
 * `output`: the columns the page returns, when fewer than `columns` (the endpoint returns only the
 * stored records and reads the last row's keyset position from its record: catalog-record.ts).
 */
export function catalogListQuery(
  filter: CatalogFilter,
  keys: SortKey[],
  limit: number,
  after: KeysetPosition | null,
  columns: readonly string[] = ['*'],
  output?: readonly string[],
): CatalogListStatement {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new Error(`page size ${limit} is not a positive integer`);
  const list = (cs: readonly string[]) => cs.map((c) => (c === '*' ? c : ident(c))).join(', ');
  const tail = raw(` limit ${limit}`);
  // Written once, not per branch: a ten-name page has ten branches.
  const selectColumns = raw(`select ${list(columns)}${FROM_FILINGS}`);
  const page = (b: { predicates: Sql[]; order: string }, select = selectColumns) => sql`${select}${where(b.predicates)}${raw(b.order)}${tail}`;
  // Each branch in its own ORDER BY, as its index reads it (keyset.ts); the merge above orders by the page's.
  const branches = pageBranches(keys, after);
  // A few matched names: one branch per name (and keyset branch), each an index range of (name, sort...),
  // so the page reads about `limit` rows instead of filtering the list's index walk by substring.
  const byName = filter.byName && filter.byName.names.length * branches.length <= MAX_NAME_BRANCHES ? filter.byName : null;
  const selects = byName
    ? byName.names.flatMap((name) => branches.map((b) => ({ predicates: [...byName.where(name), ...b.where()], order: b.order })))
    : branches.map((b) => ({ predicates: [...filter.where(), ...b.where()], order: b.order }));
  // Merged branches select `columns` (the sort columns and id, for the outer ORDER BY); the page returns
  // `output` (default: the same).
  if (selects.length === 1) return page(selects[0], output ? raw(`select ${list(output)}${FROM_FILINGS}`) : selectColumns);
  const merged = join(selects.map((b) => sql`(${page(b)})`), ' union all ');
  return sql`select ${raw(output ? list(output) : '*')} from (${merged}) as "after"${raw(orderBySql(keys))}${tail}`;
}
