import type { Knex } from 'knex';
import { queryPreparedSql } from '../../infra/postgres/prepared';
import { defineRoute, type RouteModule } from '../../src/http/route';
import type { CursorService } from '../../src/http/cursors';
import { z } from '../../src/http/zod';
import { CatalogFiling, catalogListColumns, listRecordText, type CatalogListRow } from './catalog-record';
import { CatalogListQuery, catalogFilter, checkCombination, sortKeys } from './catalog-filters';
import { catalogListQuery } from './catalog-list-query';
import type { KeysetPosition } from './keyset';

/** GET cursors of the catalog list; the search endpoint uses its own kind, so they never interchange. */
export const CATALOG_LIST_CURSOR = 'catalog.filings.get';

const CatalogPage = z.object({ filings: z.array(CatalogFiling), nextCursor: z.string().nullable() }).openapi('CatalogFilingPage');

/** GET /insurance/filings and /filings: the catalog browsed by metadata, as a live keyset. */
export class ListCatalogFilingsRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/filings', '/filings'],
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
          const binding = { kind: CATALOG_LIST_CURSOR, principal, request: { ...request, limit } };
          const decoded = cursor ? await this.cursors.decode<KeysetPosition>(binding, cursor) : null;
          const withDescription = query.source?.length === 1 && query.sourceReference?.length === 1;
          const filter = await catalogFilter(this.knex, query, principal);
          const columns = catalogListColumns(keys.map((k) => k.column), withDescription);
          const statement = catalogListQuery(filter, keys, limit + 1, decoded?.state ?? null, columns);
          const rows = await queryPreparedSql<CatalogListRow>(this.knex, statement.sql, statement.bindings);
          const page = rows.length > limit ? rows.slice(0, limit) : rows;
          let nextCursor: string | null = null;
          if (rows.length > limit) {
            const last = page[page.length - 1];
            nextCursor = await this.cursors.encode<KeysetPosition>(binding, { v: keys.map((k) => last[k.column] ?? null), id: last.id }, decoded?.issuedAt);
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
