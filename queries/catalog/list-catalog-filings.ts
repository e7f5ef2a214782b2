import type { Knex } from 'knex';
import { queryPreparedSql } from '../../infra/postgres/prepared';
import { defineRoute, type RouteModule } from '../../src/http/route';
import type { CursorService } from '../../src/http/cursors';
import { z } from '../../src/http/zod';
import { CatalogFiling, catalogListColumns, catalogPageOutput, keysetPositionOf, listRecordText, type CatalogListRow } from './catalog-record';
import { CatalogListQuery, DEFAULT_SORT, MANY_NAMES, catalogFilter, checkCombination, sortKeys, type CatalogFilter } from './catalog-filters';
import { catalogListQuery, type CatalogListStatement } from './catalog-list-query';
import type { Principal } from '../../src/domain/principal';
import { CatalogNames, splitNamesVersion, withNamesVersion, type NameLists } from './catalog-names-cache';
import type { KeysetPosition } from './keyset';

/** GET cursors of the catalog list; the search endpoint uses its own kind, so they never interchange. */
export const CATALOG_LIST_CURSOR = 'catalog.filings.get';

/**
 * Pages read against a stale copy of the names (a name matching the term arrived since) before the
 * route gives up the copy and looks the names up in Postgres for that request.
 */
const NAME_ATTEMPTS = 3;

/** Whether two copies of the names match the query's `...Contains` terms to the same names. */
function sameMatches(a: NameLists, b: NameLists, q: CatalogListQuery): boolean {
  const same = (x: string[] | null, y: string[] | null) => (x === null || y === null ? x === y : x.length === y.length && x.every((n, i) => n === y[i]));
  return (
    (!q.companyNameContains || same(a.matching('company_name', q.companyNameContains, MANY_NAMES), b.matching('company_name', q.companyNameContains, MANY_NAMES))) &&
    (!q.productNameContains || same(a.matching('product_name', q.productNameContains, MANY_NAMES), b.matching('product_name', q.productNameContains, MANY_NAMES)))
  );
}

/** Builds the page's statement for a resolved filter. */
type PageStatement = (filter: CatalogFilter) => CatalogListStatement;

/** What the page reads: its statement for a filter, and the columns each row returns. */
interface PageRead {
  build: PageStatement;
  output: readonly string[];
}

const CatalogPage = z.object({ filings: z.array(CatalogFiling), nextCursor: z.string().nullable() }).openapi('CatalogFilingPage');

/** GET /insurance/filings and /filings: the catalog browsed by metadata, as a live keyset. */
export class ListCatalogFilingsRoute implements RouteModule {
  private readonly names: CatalogNames;

  constructor(private readonly knex: Knex, private readonly cursors: CursorService) {
    this.names = new CatalogNames(knex);
  }

  /**
   * The page's rows. A `...Contains` term is matched against the API's copy of the names, and the page
   * returns the names version of its own snapshot: when it differs from the copy's, names were added
   * since the copy was loaded, and the copy is reloaded (a load that starts after the page, so it
   * sees at least what the page saw). Names are never removed, so copy <= page <= reload: when the
   * reload matches the terms to the same names as the copy did, the page's snapshot did too and the
   * page is exact; otherwise it is read again with the reloaded names.
   */
  private async pageRows(query: CatalogListQuery, principal: Principal, read: PageRead): Promise<CatalogListRow[]> {
    if (!query.companyNameContains && !query.productNameContains) return (await this.readPage(await catalogFilter(this.knex, query, principal), read)).rows;
    let names = await this.names.current();
    for (let attempt = 1; attempt <= NAME_ATTEMPTS; attempt++) {
      const page = await this.readPage(await catalogFilter(this.knex, query, principal, names), read, true);
      if (page.namesVersion === names.version) return page.rows;
      const reloaded = await this.names.loadAfter(this.names.mark());
      if (sameMatches(names, reloaded, query)) return page.rows;
      names = reloaded;
    }
    // Names keep arriving that match the term: look them up in Postgres for this request.
    return (await this.readPage(await catalogFilter(this.knex, query, principal), read)).rows;
  }

  /** Runs the page's statement, with the names version of its snapshot when `versioned` (withNamesVersion). */
  private async readPage(filter: CatalogFilter, read: PageRead, versioned = false): Promise<{ rows: CatalogListRow[]; namesVersion: string | null }> {
    const s = read.build(filter);
    if (!versioned) return { rows: await queryPreparedSql<CatalogListRow>(this.knex, s), namesVersion: null };
    const v = withNamesVersion(s, read.output);
    return splitNamesVersion(await queryPreparedSql<CatalogListRow>(this.knex, v));
  }

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/filings', '/filings'],
        operationId: ['listInsuranceFilings', 'listFilings'],
        summary: 'List catalog filings',
        tags: ['catalog'],
        description:
          'Filters combine with AND, repeated values of one filter with OR. Pages are a live keyset: filings that arrive while paging cause no duplicates and no gaps. ' +
          'Florida references may be given with or without the FL- prefix. Without serff:view, SERFF filings are absent and source=serff is 403.',
        query: CatalogListQuery,
        responses: { 200: { description: 'A page of catalog filings', schema: CatalogPage } },
        handler: async ({ query, principal }) => {
          checkCombination(query, principal);
          const keys = sortKeys(query.sort);
          const limit = query.limit ?? 50;
          const { cursor, ...request } = query;
          // Bound with the defaults filled in: the default sort or limit sent explicitly is the same request.
          const binding = { kind: CATALOG_LIST_CURSOR, principal, request: { ...request, sort: request.sort?.length ? request.sort : DEFAULT_SORT, limit } };
          const decoded = cursor ? await this.cursors.decode<KeysetPosition>(binding, cursor) : null;
          const withDescription = query.source?.length === 1 && query.sourceReference?.length === 1;
          const columns = catalogListColumns(keys.map((k) => k.column), withDescription);
          const output = catalogPageOutput(withDescription);
          const after = decoded?.state ?? null;
          const build: PageStatement = (filter) => catalogListQuery(filter, keys, limit + 1, after, columns, output);
          const rows = await this.pageRows(query, principal, { build, output });
          const page = rows.length > limit ? rows.slice(0, limit) : rows;
          let nextCursor: string | null = null;
          if (rows.length > limit) {
            const last = page[page.length - 1];
            nextCursor = await this.cursors.encode<KeysetPosition>(binding, keysetPositionOf(last.list_record, keys), decoded?.issuedAt);
          }
          // The records are stored as JSON text (catalog-record.ts): the page is assembled around them.
          let json = '{"filings":[';
          for (let i = 0; i < page.length; i++) json += (i ? ',' : '') + listRecordText(page[i], withDescription);
          return { json: `${json}],"nextCursor":${JSON.stringify(nextCursor)}}` };
        },
      }),
    ];
  }
}
