import type { Knex } from 'knex';
import { CATALOG_FILINGS } from '../../src/read-models/catalog';
import { DIR } from '../../src/read-models/directory';
import { notFound } from '../../src/domain/errors';
import { canViewSerff } from '../../src/domain/principal';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { CatalogFiling, toCatalogFiling, type CatalogRow } from '../catalog/catalog-record';

/**
 * GET /insurance/products/{productId}/availability/{state}/filings: the catalog filings the product
 * record lists for that state, as catalog filing records, newest submission first. SERFF filings
 * need serff:view like everywhere else. The list is bounded by the product record, so one page.
 */
export class ProductAvailabilityFilingsRoute implements RouteModule {
  constructor(private readonly knex: Knex) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/products/{productId}/availability/{state}/filings', '/products/{productId}/availability/{state}/filings'],
        operationId: ['listInsuranceProductAvailabilityFilings', 'listProductAvailabilityFilings'],
        summary: 'Catalog filings recorded for a product in a state',
        description:
          'The catalog filings the directory cites for this product in this state, as catalog records. SERFF filings are absent without serff:view. One page, newest submission first; a state with none is an empty list. 404 when the product is unknown.',
        tags: ['directories'],
        params: z.strictObject({ productId: z.string().max(500), state: z.string().min(1).max(200) }),
        responses: { 200: { description: 'The filings (always one page)', schema: z.object({ filings: z.array(CatalogFiling), nextCursor: z.null() }) } },
        handler: async ({ params, principal }) => {
          const p = await this.knex(DIR.products).where({ id: params.productId }).first('filings');
          if (!p) throw notFound(`No product ${params.productId}.`);
          const ids = (p.filings as { state: string; filingId: string }[]).filter((f) => f.state === params.state).map((f) => f.filingId);
          const qb = this.knex(CATALOG_FILINGS).whereIn('id', ids);
          if (!canViewSerff(principal)) qb.whereNot('source', 'serff');
          const rows = (await qb.orderByRaw('submission_date desc nulls last, id')) as CatalogRow[];
          return { headers: { 'Cache-Control': 'private, no-store' }, body: { filings: rows.map((r) => toCatalogFiling(r, false)), nextCursor: null } };
        },
      }),
    ];
  }
}
