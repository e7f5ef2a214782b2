import type { Knex } from 'knex';
import { CATALOG_FILINGS } from '../../projections/catalog/catalog-projector';
import type { CatalogFilter } from './catalog-filters';
import { afterBranches, orderBy, type KeysetPosition, type SortKey } from './keyset';

/**
 * The SQL of one catalog list page: the endpoint runs it, the query-plan test EXPLAINs it and the
 * benchmark runs it directly with pg. After a position, each keyset branch is its own SELECT with the
 * filters, the page's ORDER BY and LIMIT (so Postgres plans each as a bounded index range: without
 * its own LIMIT a branch is planned for all its rows and gets a sequential scan and a sort), and the
 * outer ORDER BY ... LIMIT merges them: a Merge Append that pulls about one page in all (see keyset.ts).
 */
export function catalogListQuery(knex: Knex, filter: CatalogFilter, keys: SortKey[], limit: number, after: KeysetPosition | null, columns: readonly string[] = ['*']): Knex.QueryBuilder {
  const page = (branch?: (qb: Knex.QueryBuilder) => void) => {
    const qb = knex(CATALOG_FILINGS).select(columns);
    filter(qb);
    branch?.(qb);
    orderBy(qb, keys);
    return qb.limit(limit);
  };
  const branches = after ? afterBranches(keys, after) : [];
  if (branches.length <= 1) return page(branches[0]);
  const merged = knex.select('*').from(knex.unionAll(branches.map((b) => page(b)), true).as('after'));
  orderBy(merged, keys);
  return merged.limit(limit);
}
