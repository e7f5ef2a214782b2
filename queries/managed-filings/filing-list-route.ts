import type { Knex } from 'knex';
import { forbidden } from '../../src/domain/errors';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { baseFilingFromRow } from '../../src/read-models/working-filings/records';
import { ManagedFilingBase } from '../../src/http/schemas/working-filings';

/** Keyset position: own-scope phase (scope, createdAt, id) or shared phase (createdAt, id; none = from the start). */
type Position = { p: 'o'; s: string; c: string; i: string } | { p: 's'; c?: string; i?: string };

const Query = z.strictObject({ limit: qInt(1, 100, 50).optional(), cursor: cursorParam().optional() });

const FilingList = z.object({ filings: z.array(ManagedFilingBase), nextCursor: z.string().nullable() }).openapi('ManagedFilingList');

/**
 * GET /insurance/managed-filings (and /managed-filings): every filing of the caller's active, granted
 * scopes (scope UUID asc, createdAt desc, id asc), then, with tenant sharing on, filings shared in from
 * other tenants (createdAt desc, id asc). The cursor binds the sharing mode and the set of accessible
 * scopes: a lost scope or a changed mode makes it invalid, and access is recomputed on every page.
 */
export class FilingListRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly access: FilingAccessService, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/managed-filings', '/managed-filings'],
        operationId: ['listInsuranceManagedFilings', 'listManagedFilings'],
        summary: 'Working filings across the caller\'s scopes',
        description: 'Needs an ordinary user API key (a read-only key is 403). Base fields only.',
        tags: ['working filings'],
        query: Query,
        responses: { 200: { description: 'A page of filings', schema: FilingList } },
        handler: async ({ principal, query }) => {
          if (principal.readOnly) throw forbidden('The cross-scope working-filing list needs an ordinary user API key, not a read-only one.');
          const limit = query.limit ?? 50;
          const grants = await this.access.grants(principal);
          const sharing = await this.access.sharing(principal);
          const scopeIds = grants.map((g) => g.scopeId);
          const binding = { kind: 'managed-filings:list', principal, request: { limit, sharing, scopes: scopeIds } };
          let pos: Position | null = null;
          let issuedAt: number | undefined;
          if (query.cursor) {
            const d = await this.cursors.decode<Position>(binding, query.cursor);
            pos = d.state;
            issuedAt = d.issuedAt;
          }
          const rows: Record<string, any>[] = [];
          let next: Position | null = null;
          if (!pos || pos.p === 'o') {
            const own = await this.ownPage(principal.tenantId, scopeIds, pos, limit + 1);
            rows.push(...own.slice(0, limit));
            if (own.length > limit) next = { p: 'o', s: own[limit - 1].scope_id, c: new Date(own[limit - 1].created_at).toISOString(), i: own[limit - 1].id };
          }
          if (!next && sharing && scopeIds.length) {
            const remaining = limit - rows.length;
            const shared = await this.sharedPage(principal.tenantId, scopeIds, pos?.p === 's' ? pos : null, remaining + 1);
            rows.push(...shared.slice(0, remaining));
            if (shared.length > remaining) {
              // A page filled by own filings alone continues in the own phase (which then finds none and
              // moves on to the shared ones); otherwise it continues after the last shared filing.
              const last = rows[rows.length - 1];
              next = remaining === 0 ? { p: 'o', s: last.scope_id, c: new Date(last.created_at).toISOString(), i: last.id } : { p: 's', c: new Date(last.created_at).toISOString(), i: last.id };
            }
          }
          return {
            headers: { 'Cache-Control': 'private, no-store' },
            body: { filings: rows.map(baseFilingFromRow), nextCursor: next ? await this.cursors.encode(binding, next, issuedAt) : null },
          };
        },
      }),
    ];
  }

  private ownPage(tenantId: string, scopeIds: string[], pos: Extract<Position, { p: 'o' }> | null, n: number) {
    if (!scopeIds.length) return Promise.resolve([]);
    const q = this.knex('managed_filings').where('tenant_id', tenantId).whereIn('scope_id', scopeIds);
    if (pos) {
      q.andWhere((w) =>
        w
          .where('scope_id', '>', pos.s)
          .orWhere((x) => x.where('scope_id', pos.s).andWhere('created_at', '<', pos.c))
          .orWhere((x) => x.where('scope_id', pos.s).andWhere('created_at', pos.c).andWhere('id', '>', pos.i)),
      );
    }
    return q.orderBy([{ column: 'scope_id' }, { column: 'created_at', order: 'desc' }, { column: 'id' }]).limit(n);
  }

  /** Filings of other tenants shared into any accessible scope, each once, while their home scope is active. */
  private sharedPage(tenantId: string, scopeIds: string[], pos: Extract<Position, { p: 's' }> | null, n: number) {
    const q = this.knex('managed_filings as f')
      .whereNot('f.tenant_id', tenantId)
      .whereExists((e) => e.select(this.knex.raw('1')).from('managed_filing_shares as sh').whereRaw('sh.filing_id = f.id').whereIn('sh.scope_id', scopeIds))
      .whereExists((e) => e.select(this.knex.raw('1')).from('identity_scopes as home').whereRaw('home.scope_id = f.scope_id').andWhere('home.active', true));
    if (pos?.c) {
      const c = pos.c;
      const i = pos.i!;
      q.andWhere((w) => w.where('f.created_at', '<', c).orWhere((x) => x.where('f.created_at', c).andWhere('f.id', '>', i)));
    }
    return q.orderBy([{ column: 'f.created_at', order: 'desc' }, { column: 'f.id' }]).limit(n).select('f.*');
  }
}
