import type { Knex } from 'knex';
import { notFound } from '../../src/domain/errors';
import { canViewSerff } from '../../src/domain/principal';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { CATALOG_FILINGS } from '../../src/read-models/catalog';
import { CatalogFilingDetail, toCatalogFilingDetail, type CatalogRow } from './catalog-record';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

/** GET /insurance/filings/{filingId} and /filings/{filingId}: the detail record. */
export class GetCatalogFilingRoute implements RouteModule {
  constructor(private readonly knex: Knex) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/filings/{filingId}', '/filings/{filingId}'],
        operationId: ['getInsuranceFiling', 'getFiling'],
        summary: 'Get a catalog filing',
        tags: ['catalog'],
        description:
          'The list record plus description and a files summary (count and per-role counts). A native reference is not an ID: anything but a catalog filing UUID is 404. ' +
          'Without serff:view a SERFF filing is 404.',
        params: z.strictObject({ filingId: z.string() }),
        responses: { 200: { description: 'The catalog filing', schema: CatalogFilingDetail } },
        handler: async ({ params, principal }) => {
          if (!UUID.test(params.filingId)) throw notFound('No catalog filing has this ID (a native reference is not an ID).');
          const row = (await this.knex(CATALOG_FILINGS).where({ id: params.filingId.toLowerCase() }).first()) as CatalogRow | undefined;
          if (!row || (row.source === 'serff' && !canViewSerff(principal))) throw notFound();
          return { body: toCatalogFilingDetail(row) };
        },
      }),
    ];
  }
}
