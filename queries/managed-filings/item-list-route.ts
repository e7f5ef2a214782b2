import type { Knex } from 'knex';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { currentArtifactsFromJson, itemArtifactsSql, withCurrentArtifacts } from '../../src/read-models/working-filings/current-artifacts';
import type { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { itemFromRow, itemFromState } from '../../src/read-models/working-filings/records';
import { FilingIdParams, Item } from '../../src/http/schemas/working-filings';

const Query = z.strictObject({ limit: qInt(1, 100, 50).optional(), cursor: cursorParam().optional() });
const ItemList = z.object({ items: z.array(Item), nextCursor: z.string().nullable() }).openapi('ManagedFilingItemList');

/**
 * GET /managed-filings/{filingId}/items: createdAt desc, id asc; cursor bound to caller, filing and limit.
 * Each item shows its artifacts' current versions (see current-artifacts.ts), in the page's one statement.
 */
export class ItemListRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly access: FilingAccessService, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/managed-filings/{filingId}/items'],
        operationId: 'listManagedFilingItems',
        summary: 'Items of a working filing',
        description: "Needs filing read access; default limit 50. Each item shows its artifacts' current versions and names.",
        tags: ['working filings'],
        params: FilingIdParams,
        query: Query,
        responses: { 200: { description: 'A page of items', schema: ItemList } },
        handler: async ({ principal, params, query }) => {
          const a = await this.access.filing(principal, params.filingId);
          const limit = query.limit ?? 50;
          const binding = { kind: 'managed-filings:items', principal, request: { filingId: a.row.id, limit } };
          const d = query.cursor ? await this.cursors.decode<{ c: string; i: string }>(binding, query.cursor) : null;
          // Artifacts are resolved in the filing's own scope: items follow their files' current content.
          const q = this.knex('managed_filing_items as i')
            .select('i.*', this.knex.raw(`${itemArtifactsSql('?')} as artifacts`, [a.row.scope_id]))
            .where('i.filing_id', a.row.id);
          if (d) q.andWhere((w) => w.where('i.created_at', '<', d.state.c).orWhere((x) => x.where('i.created_at', d.state.c).andWhere('i.id', '>', d.state.i)));
          const rows = await q.orderBy([{ column: 'i.created_at', order: 'desc' }, { column: 'i.id' }]).limit(limit + 1);
          const page = rows.slice(0, limit);
          const last = page[page.length - 1];
          const nextCursor = rows.length > limit ? await this.cursors.encode(binding, { c: new Date(last.created_at).toISOString(), i: last.id }, d?.issuedAt) : null;
          return { headers: { 'Cache-Control': 'private, no-store' }, body: { items: page.map((r) => itemFromState(withCurrentArtifacts(itemFromRow(r), currentArtifactsFromJson(r.artifacts)))), nextCursor } };
        },
      }),
    ];
  }
}
