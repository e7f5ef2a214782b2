import type { Knex } from 'knex';
import { CATALOG_FILINGS } from '../../projections/catalog/catalog-projector';
import type { CatalogFilter } from './catalog-filters';
import { afterBranches, orderBy, type KeysetPosition, type SortKey } from './keyset';

/**
 * The SQL of one catalog list page: the endpoint runs it, the query-plan test EXPLAINs it and the
 * benchmark runs it directly with pg. After a position, each keyset branch is its own SELECT with the
 * filters; UNION ALL under the outer ORDER BY ... LIMIT lets Postgres merge their index scans, reading
 * about one page from each (see keyset.ts).
 */
export function catalogListQuery(knex: Knex, filter: CatalogFilter, keys: SortKey[], limit: number, after: KeysetPosition | null, columns: readonly string[] = ['*']): Knex.QueryBuilder {
  const select = (branch?: (qb: Knex.QueryBuilder) => void) => {
    const qb = knex(CATALOG_FILINGS).select(columns);
    filter(qb);
    branch?.(qb);
    return qb;
  };
  const branches = after ? afterBranches(keys, after) : [];
  const qb = branches.length > 1 ? knex.select('*').from(knex.unionAll(branches.map((b) => select(b)), true).as('after')) : select(branches[0]);
  orderBy(qb, keys);
  return qb.limit(limit);
}
