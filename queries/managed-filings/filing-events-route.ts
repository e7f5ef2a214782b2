import type { Knex } from 'knex';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { FilingIdParams } from '../../src/http/schemas/working-filings';

const Query = z.strictObject({ limit: qInt(1, 500, 100).optional(), cursor: cursorParam().optional() });
const EventList = z
  .object({
    // data and metadata are always there (objects); z.unknown() documented them as optional.
    events: z.array(
      z.object({
        type: z.string(),
        version: z.number().int(),
        position: z.number().int(),
        data: z.record(z.string(), z.unknown()),
        metadata: z.record(z.string(), z.unknown()),
        recordedAt: z.string().openapi({ format: 'date-time' }),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .openapi('ManagedFilingEvents');

/** GET /managed-filings/{filingId}/events (extension): the filing's whole event history, from its history read model. */
export class FilingEventsRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly access: FilingAccessService, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/managed-filings/{filingId}/events'],
        operationId: 'listManagedFilingEvents',
        summary: 'Event history of a working filing',
        extension: true,
        description:
          'In stream order (version ascending); limit 1..500, default 100. Needs filing read access. Same content as `ifrs events read --stream managedFiling-<id>`, except that a tenant the filing is shared into does not see its shares into other tenants\' scopes.',
        tags: ['working filings'],
        params: FilingIdParams,
        query: Query,
        responses: { 200: { description: 'A page of events', schema: EventList } },
        handler: async ({ principal, params, query }) => {
          const a = await this.access.filing(principal, params.filingId);
          const limit = query.limit ?? 100;
          const binding = { kind: 'managed-filings:events', principal, request: { filingId: a.row.id, limit } };
          const d = query.cursor ? await this.cursors.decode<{ v: number }>(binding, query.cursor) : null;
          const q = this.knex('managed_filing_events')
            .where({ filing_id: a.row.id })
            .andWhere('version', '>', d?.state.v ?? 0);
          // A tenant the filing is shared into sees the history without the shares into other tenants'
          // scopes: which tenants and scopes those are is their data, not the filing's.
          if (a.row.tenant_id !== principal.tenantId) q.andWhereRaw(`not (type = 'ManagedFilingShared' and data ->> 'tenantId' is distinct from ?)`, [principal.tenantId]);
          const rows = await q.orderBy('version').limit(limit + 1);
          const page = rows.slice(0, limit);
          const nextCursor = rows.length > limit ? await this.cursors.encode(binding, { v: page[page.length - 1].version }, d?.issuedAt) : null;
          return {
            headers: { 'Cache-Control': 'private, no-store' },
            body: {
              events: page.map((r) => ({ type: r.type, version: r.version, position: Number(r.position), data: r.data, metadata: r.metadata, recordedAt: new Date(r.recorded_at).toISOString() })),
              nextCursor,
            },
          };
        },
      }),
    ];
  }
}
