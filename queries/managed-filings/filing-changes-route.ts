import type { Knex } from 'knex';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { FilingAccessService } from './filing-access';
import type { FilingHistory } from './filing-history';
import { changeEntries } from './state-diff';
import { FilingIdParams } from './schemas';

/** A JSON value: a field's, or a whole item or comment where one appears or goes; null where absent. */
const ChangeValue = z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.unknown()), z.record(z.string(), z.unknown())]).openapi('ManagedFilingChangeValue');
const Query = z.strictObject({ limit: qInt(1, 100, 50).optional(), cursor: cursorParam().optional() });
const ChangeList = z
  .object({
    changes: z.array(
      z.object({
        version: z.number().int(),
        recordedAt: z.string().openapi({ format: 'date-time' }),
        type: z.string(),
        actor: z.object({ userId: z.string().nullable(), name: z.string().nullable() }),
        requestId: z.string().nullable(),
        changes: z.array(z.object({ path: z.array(z.string()), before: ChangeValue, after: ChangeValue })),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .openapi('ManagedFilingChanges');

/**
 * GET /managed-filings/{filingId}/changes (extension): one entry per event, oldest first, with the
 * field-level differences between the states before and after it, both folded from the log with the
 * decider's evolve, so the history can never disagree with the state.
 */
export class FilingChangesRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly access: FilingAccessService, private readonly cursors: CursorService, private readonly history: FilingHistory) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/managed-filings/{filingId}/changes'],
        operationId: 'listManagedFilingChanges',
        summary: 'Field-level change history of a working filing',
        extension: true,
        description:
          'One entry per event of the filing, oldest first: version, recorded time, event type, actor (user id and name), request id and `changes` (`path` into the filing: a field name, or `items`/`comments`/`threads`, the id, then the field; `before` and `after`, null where the entry did not exist). Built from the event log, not the read models. limit 1..100 (default 50); the cursor binds caller, filing and limit for 24 hours. Needs filing read access; actor names are shown for users of the caller\'s tenant only, and a tenant the filing is shared into does not see its shares into other tenants.',
        tags: ['working filings'],
        params: FilingIdParams,
        query: Query,
        responses: { 200: { description: 'A page of changes', schema: ChangeList } },
        handler: async ({ principal, params, query }) => {
          const a = await this.access.filing(principal, params.filingId);
          const limit = query.limit ?? 50;
          const binding = { kind: 'managed-filings:changes', principal, request: { filingId: a.row.id, limit } };
          const d = query.cursor ? await this.cursors.decode<{ v: number }>(binding, query.cursor) : null;
          const after = d?.state.v ?? 0;
          const events = await this.history.events(a.row.id);
          const foreign = a.row.tenant_id !== principal.tenantId;
          // As the events list: a tenant the filing is shared into does not see its shares into other tenants.
          const { entries, more } = changeEntries(events, after, limit, (e) => !(foreign && e.type === 'ManagedFilingShared' && (e.data as { tenantId?: string }).tenantId !== principal.tenantId));
          // Names of the caller's own tenant only: another tenant's users are its own business.
          const ids = [...new Set(entries.map((e) => e.actor.userId).filter((u): u is string => u !== null))];
          if (ids.length) {
            const names = new Map((await this.knex('identity_users').whereIn('id', ids).andWhere('tenant_id', principal.tenantId).select('id', 'name')).map((r: { id: string; name: string }) => [r.id, r.name]));
            for (const e of entries) if (e.actor.userId) e.actor.name = names.get(e.actor.userId) ?? null;
          }
          const nextCursor = more ? await this.cursors.encode(binding, { v: entries[entries.length - 1].version }, d?.issuedAt) : null;
          return { headers: { 'Cache-Control': 'private, no-store' }, body: { changes: entries, nextCursor } };
        },
      }),
    ];
  }
}
