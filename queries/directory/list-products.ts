import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';
import { MGA_SLUG } from '../../src/domain/directory-records';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qBool, qInt, qList } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { carrierIdsFor, groupIdsFor } from './directory-resolution';
import { ProductListItem } from './directory-schemas';
import { offsetPage } from './directory-paging';
import { productBase, productsWithNames, type ProductRow } from './product-record';

const value = z.string().min(1, 'Must not be empty.').max(200, 'At most 200 characters.');

/** Filter names the spec leaves open are ours: name, mga, carrier, type, toi, subToi, admitted (see the OpenAPI descriptions). */
const Query = z.strictObject({
  name: qList(value).optional().describe('Case-insensitive literal substring of the product name.'),
  mga: qList(value.regex(MGA_SLUG, 'An MGA slug: lowercase letters and digits joined by single hyphens.')).optional(),
  carrier: qList(value).optional().describe('A writing company: NAIC company code (normalized to five digits) or carrier ID.'),
  group: qList(value).optional().describe('NAIC group code (leading zeros normalized) or directory group ID.'),
  state: qList(value.regex(/^[^,[\]]+$/, 'No commas or brackets.')).optional().describe('Exact, case-sensitive availability state.'),
  type: qList(value).optional().describe('Exact, case-sensitive line of business (e.g. cyber).'),
  toi: qList(value).optional().describe('Exact TOI code, leading zeros kept.'),
  subToi: qList(value).optional().describe('Exact sub-TOI code; usable without toi.'),
  admitted: qBool().optional().describe('true or false; omit for both.'),
  limit: qInt(1, 200, 50).optional(),
  cursor: cursorParam().optional(),
});

const LIVE_CURSOR = { kind: 'directory.products', principal: null, request: null };

/** GET /insurance/products and /products. */
export class ListProductsRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/products', '/products'],
        operationId: ['listInsuranceProducts', 'listProducts'],
        summary: 'List products',
        tags: ['directories'],
        description:
          'Each product once. Repeated values of a filter combine with OR, distinct filters with AND; carrier, state, toi and subToi must all match within the same availability row. ' +
          'availabilitySummary lists every configured state, also those outside a state filter. Sorted by case-insensitive name, then id. Cursors are live offsets (no binding to filters, limit or caller, no expiry): repeat filters and limit on later pages. Private, not cacheable.',
        query: Query,
        responses: {
          200: {
            description: 'A page of products',
            schema: z.object({ products: z.array(ProductListItem), nextCursor: z.string().nullable() }),
            headers: { 'Cache-Control': { description: 'private, no-store' } },
          },
        },
        handler: async ({ query }) => {
          const { cursor } = query;
          const limit = query.limit ?? 50;
          const carrierIds = query.carrier ? await carrierIdsFor(this.knex, query.carrier) : null;
          const groupIds = query.group ? await groupIdsFor(this.knex, query.group) : null;
          // The spec: product cursors are "offset-based and live (no binding or expiry); repeat filters and
          // limit on later pages". So the cursor carries the offset alone, bound to neither the request nor
          // the caller (products are shared), and never expires; it is still signed against tampering.
          const page = await offsetPage(this.cursors, LIVE_CURSOR, cursor, limit, (offset, n) => {
            const qb = productsWithNames(this.knex);
            if (query.name) qb.where((w) => query.name!.forEach((s) => w.orWhereRaw('strpos(lower(p.name), ?) > 0', [s.toLowerCase()])));
            if (query.mga) qb.whereIn('p.mga_id', query.mga.map((s) => `mga_${s}`));
            if (query.type) qb.whereIn('p.product_type', query.type);
            if (query.admitted !== undefined) qb.where('p.admitted', query.admitted);
            if (groupIds) qb.whereIn('p.group_id', groupIds);
            if (carrierIds || query.state || query.toi || query.subToi) {
              // One availability row must satisfy all of them together.
              qb.whereExists((sub) => {
                sub.select(this.knex.raw('1')).from(`${DIR.availability} as a`).whereRaw('a.product_id = p.id');
                if (carrierIds) sub.whereRaw('a.writing_company_ids && ?::text[]', [carrierIds]);
                if (query.state) sub.whereIn('a.state', query.state);
                if (query.toi) sub.whereRaw('a.toi_codes && ?::text[]', [query.toi]);
                if (query.subToi) sub.whereRaw('a.subtoi_codes && ?::text[]', [query.subToi]);
              });
            }
            return qb.orderByRaw('lower(p.name), p.id').offset(offset).limit(n) as unknown as Promise<ProductRow[]>;
          }, { expires: false });
          return {
            headers: { 'Cache-Control': 'private, no-store' },
            body: {
              products: page.items.map((r) => ({ ...productBase(r), availabilitySummary: { states: r.states, stateCount: r.states.length } })),
              nextCursor: page.nextCursor,
            },
          };
        },
      }),
    ];
  }
}
