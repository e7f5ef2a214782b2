import type { Knex } from 'knex';
import type { ListingKind } from '../../src/domain/events/scope-listings';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule, type RouteSpec } from '../../src/http/route';
import { cursorParam, qInt, qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { Principal } from '../../src/domain/principal';
import type { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { ScopeString } from '../../src/http/schemas/working-filings';

const LISTS: { kind: ListingKind; path: string; field: 'companies' | 'jurisdictions' | 'products' }[] = [
  { kind: 'company', path: 'companies', field: 'companies' },
  { kind: 'jurisdiction', path: 'jurisdictions', field: 'jurisdictions' },
  { kind: 'product', path: 'products', field: 'products' },
];

interface Filters {
  scope: string;
  name?: string;
  code?: string;
  limit?: number;
  cursor?: string;
}

function entry(kind: ListingKind, r: Record<string, any>) {
  if (kind === 'company') return { id: r.id, scope: r.scope, name: r.name, naicCompanyCode: r.code };
  if (kind === 'jurisdiction') return { id: r.id, scope: r.scope, code: r.code, name: r.name };
  return { id: r.id, scope: r.scope, name: r.name };
}

const Entry = {
  company: z.object({ id: z.string(), scope: z.string(), name: z.string(), naicCompanyCode: z.string().nullable() }).openapi('ScopeCompany'),
  jurisdiction: z.object({ id: z.string(), scope: z.string(), code: z.string(), name: z.string() }).openapi('ScopeJurisdiction'),
  product: z.object({ id: z.string(), scope: z.string(), name: z.string() }).openapi('ScopeProduct'),
};

/**
 * The company, jurisdiction and product listings of a scope, by GET (query) or POST (the same filters
 * as a JSON body). `scope` is required (a scope where the caller holds any role; 404 otherwise);
 * `name` is a case-insensitive substring; `code` (jurisdictions: state code, companies: NAIC code)
 * is exact. Ordered by case-insensitive name, then id; cursors bind caller, filters and limit (24 h).
 */
export class ScopeListingRoutes implements RouteModule {
  constructor(private readonly knex: Knex, private readonly access: FilingAccessService, private readonly cursors: CursorService) {}

  private async page(kind: ListingKind, field: string, form: 'get' | 'post', principal: Principal, f: Filters) {
    const grant = await this.access.grantIn(principal, f.scope);
    const limit = f.limit ?? 50;
    const binding = { kind: `scope-listing:${kind}:${form}`, principal, request: { scope: grant.scopeId, name: f.name ?? null, code: f.code ?? null, limit } };
    const d = f.cursor ? await this.cursors.decode<{ n: string; i: string }>(binding, f.cursor) : null;
    const q = this.knex('scope_listing_entries').where({ kind, scope_id: grant.scopeId });
    if (f.name) q.andWhere('name_key', 'like', `%${f.name.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    if (f.code) q.andWhere('code', f.code);
    if (d) q.andWhere((w) => w.where('name_key', '>', d.state.n).orWhere((x) => x.where('name_key', d.state.n).andWhere('id', '>', d.state.i)));
    const rows = await q.orderBy([{ column: 'name_key' }, { column: 'id' }]).limit(limit + 1);
    const items = rows.slice(0, limit);
    const last = items[items.length - 1];
    const nextCursor = rows.length > limit ? await this.cursors.encode(binding, { n: last.name_key, i: last.id }, d?.issuedAt) : null;
    return { headers: { 'Cache-Control': 'private, no-store' }, body: { [field]: items.map((r) => entry(kind, r)), nextCursor } };
  }

  routes(): RouteSpec[] {
    return LISTS.flatMap(({ kind, path, field }) => {
      const filters = { scope: ScopeString, name: z.string().min(1).max(500), code: z.string().min(1).max(20) };
      const Query = z.strictObject({ scope: qScalar(filters.scope), name: qScalar(filters.name).optional(), code: qScalar(filters.code).optional(), limit: qInt(1, 100, 50).optional(), cursor: cursorParam().optional() });
      const Body = z.strictObject({ scope: filters.scope, name: filters.name.optional(), code: filters.code.optional(), limit: z.number().int().min(1).max(100).optional(), cursor: z.string().min(1).max(128).optional() });
      const List = z.object({ [field]: z.array(Entry[kind]), nextCursor: z.string().nullable() }).openapi(`Scope${field[0].toUpperCase()}${field.slice(1)}List`);
      const Field = `${field[0].toUpperCase()}${field.slice(1)}`;
      const common = { paths: [`/insurance/managed-filings/${path}`], tags: ['working filings'], responses: { 200: { description: `A page of the scope's ${field}`, schema: List } } };
      return [
        defineRoute({ ...common, method: 'get', operationId: `listScope${Field}`, summary: `The ${field} of a scope`, description: `The scope's ${field} that working filings may name, ordered by name, in cursor pages; filters \`name\` (case-insensitive) and \`code\`. 404 for a scope the caller cannot see.`, query: Query, handler: async ({ principal, query }) => this.page(kind, field, 'get', principal, query) }),
        defineRoute({ ...common, method: 'post', operationId: `queryScope${Field}`, summary: `The ${field} of a scope (filters in the body)`, description: `As GET, with the filters and the cursor in a JSON body (for long filter values).`, body: Body, handler: async ({ principal, body }) => this.page(kind, field, 'post', principal, body) }),
      ];
    });
  }
}
