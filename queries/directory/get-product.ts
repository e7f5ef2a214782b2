import type { Knex } from 'knex';
import { CATALOG_FILINGS } from '../../src/read-models/catalog';
import { DIR } from '../../src/read-models/directory';
import { notFound } from '../../src/domain/errors';
import { canViewSerff, type Principal } from '../../src/domain/principal';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { Product } from './directory-schemas';
import { citedFilingIds, productBase, productsWithNames, withheldFrom, withVerification, type ProductRow } from './product-record';

/** GET /insurance/products/{productId}: complete availability with writing companies, and the comparison claims. */
export class GetProductRoute implements RouteModule {
  constructor(private readonly knex: Knex) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/products/{productId}', '/products/{productId}'],
        operationId: ['getInsuranceProduct', 'getProduct'],
        summary: 'Get a product',
        tags: ['directories'],
        description:
          'Claims keep their text and qualifications; a citation of a filing the caller may not see (a SERFF filing without serff:view, or one not in the catalog) is withheld. ' +
          'A claim is verified: false when no citation is left or one is of kind unavailable (internal_source).',
        params: z.strictObject({ productId: z.string().max(500) }),
        responses: { 200: { description: 'The product', schema: Product } },
        handler: async ({ params, principal }) => {
          const r = (await productsWithNames(this.knex).where('p.id', params.productId).first()) as ProductRow | undefined;
          if (!r) throw notFound(`No product ${params.productId}.`);
          const ids = [...new Set(r.availability.flatMap((a) => a.writingCompanyIds))];
          const names = new Map<string, string>(
            ((await this.knex(DIR.carriers).whereIn('id', ids).select('id', 'name')) as { id: string; name: string }[]).map((c) => [c.id, c.name]),
          );
          return {
            headers: { 'Cache-Control': 'private, no-store' },
            body: {
              ...productBase(r),
              availability: r.availability.map((a) => ({
                state: a.state,
                writingCompanies: a.writingCompanyIds.map((id) => ({ id, name: names.get(id) ?? null })),
                toiCodes: a.toiCodes,
                subtoiCodes: a.subtoiCodes,
                note: a.note,
              })),
              claims: (await this.visibleClaims(r, principal)).map(withVerification),
            },
          };
        },
      }),
    ];
  }

  /**
   * Without serff:view only citations of catalog filings known not to be SERFF filings stay: an id the
   * catalog does not hold (yet) could be one, so it is withheld too (fail closed).
   */
  private async visibleClaims(r: ProductRow, principal: Principal) {
    if (canViewSerff(principal)) return r.claims;
    const cited = citedFilingIds(r.claims);
    const visible = cited.length
      ? ((await this.knex(CATALOG_FILINGS).whereIn('id', cited).whereNot('source', 'serff').select('id')) as { id: string }[]).map((x) => x.id)
      : [];
    return withheldFrom(r.claims, new Set(visible));
  }
}
