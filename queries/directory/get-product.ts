import type { Knex } from 'knex';
import { DIR } from '../../projections/directory/directory-projector';
import { notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { Product } from './directory-schemas';
import { productBase, productsWithNames, withVerification, type ProductRow } from './product-record';

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
        description: 'Claims keep their citations as given; a claim is verified: false when it has no citation or one of kind unavailable (internal_source).',
        params: z.strictObject({ productId: z.string().max(500) }),
        responses: { 200: { description: 'The product', schema: Product } },
        handler: async ({ params }) => {
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
              claims: r.claims.map(withVerification),
            },
          };
        },
      }),
    ];
  }
}
