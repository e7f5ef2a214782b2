import type { Knex } from 'knex';
import type { FilingFields } from '../../domain/filing-fields';
import type { ListingKind } from '../../domain/events/scope-listings';
import { invalidRequest, type ErrorDetail } from '../../domain/errors';
import type { Principal, ScopeRole } from '../../domain/principal';
import { runStatement } from '../../../infra/postgres/prepared';
import type { CommandGuard } from '../../ports/command-guard';
import { assertEditable, grantOrNotFound, scopeIdOf, type ScopeGrant } from './filing-access';
import type { ArtifactRef } from './current-artifacts';

const missing = (path: (string | number)[], message: string): ErrorDetail => ({ location: 'body', path: path.map(String), code: 'invalid_value', message });

type ListingRefs = Partial<Pick<FilingFields, 'companyId' | 'jurisdictionId' | 'primaryProductId' | 'additionalProductIds'>>;

/** `$1` the scope id, `$2` company, `$3` jurisdiction, `$4` product ids: the `kind:id` of those in the scope's listings. */
const LISTED = `select e.kind || ':' || e.id as key from scope_listing_entries e
  where e.scope_id = $1 and ((e.kind = 'company' and e.id = any($2::uuid[])) or (e.kind = 'jurisdiction' and e.id = any($3::uuid[]))
    or (e.kind = 'product' and e.id = any($4::uuid[])))`;

/**
 * editableScopeListing's conditions as one row with `ok` and `role`: `$1` scope id, `$2` tenant, `$3` user,
 * `$4`-`$6` the listing ids as LISTED takes them, `$7` read-only key, `$8` the `kind:id` keys that must all be listed.
 */
const CREATE_GUARD = `select (g.role in ('editor', 'manager') and not $7::boolean
    and array(${LISTED.replace('$1', 's.scope_id').replace(/\$(\d)/g, (_, n) => `$${Number(n) + 2}`)}) @> $8::text[]) as ok, g.role
  from identity_scopes s join identity_grants g on g.scope_id = s.scope_id
  where s.scope_id = $1 and s.tenant_id = $2 and s.active and g.user_id = $3`;

/** The listing ids a filing's fields name, per listing kind, as the parameters `$2`-`$4` of LISTED take them. */
function listingParams(f: ListingRefs): [string[], string[], string[]] {
  return [
    f.companyId !== undefined ? [f.companyId] : [],
    f.jurisdictionId !== undefined ? [f.jurisdictionId] : [],
    [...(f.primaryProductId !== undefined ? [f.primaryProductId] : []), ...(f.additionalProductIds ?? [])],
  ];
}

/** companyId, jurisdictionId and every product id must come from the same scope's listings: 400 otherwise. */
function assertListed(found: ReadonlySet<string>, f: ListingRefs): void {
  const has = (kind: ListingKind, id: string) => found.has(`${kind}:${id}`);
  const details: ErrorDetail[] = [];
  if (f.companyId !== undefined && !has('company', f.companyId)) details.push(missing(['companyId'], 'companyId is not in the company listing of the filing\'s scope.'));
  if (f.jurisdictionId !== undefined && !has('jurisdiction', f.jurisdictionId))
    details.push(missing(['jurisdictionId'], 'jurisdictionId is not in the jurisdiction listing of the filing\'s scope.'));
  if (f.primaryProductId !== undefined && !has('product', f.primaryProductId)) details.push(missing(['primaryProductId'], 'primaryProductId is not in the product listing of the filing\'s scope.'));
  (f.additionalProductIds ?? []).forEach((id, i) => {
    if (!has('product', id)) details.push(missing(['additionalProductIds', i], 'The product is not in the product listing of the filing\'s scope.'));
  });
  if (details.length) throw invalidRequest(details[0].message, details);
}

/**
 * Look-ups of reference data that commands validate against (scope listings, artifacts), through
 * the read side as the architecture allows: a command never decides on read-model state beyond these.
 * Prepared statements: they run on every write, and their plans do not depend on the values.
 */
export class ReferenceLookups {
  constructor(private readonly knex: Knex) {}

  /** companyId, jurisdictionId and every product id must come from the same scope's listings: 400 otherwise. */
  async checkListings(scopeId: string, f: ListingRefs): Promise<void> {
    const params = listingParams(f);
    if (!params.some((ids) => ids.length)) return;
    const rows = await runStatement<{ key: string }>(this.knex, { name: 'wf_listed', text: LISTED, values: [scopeId, ...params] });
    assertListed(new Set(rows.map((r) => r.key)), f);
  }

  /**
   * A create's checks in one round trip: the caller's grant in the named scope (404 unseen, 403
   * unchangeable, as FilingAccessService.editableScope) and then the fields' listing ids in that scope (400).
   */
  async editableScopeListing(p: Principal, scope: string, f: ListingRefs): Promise<ScopeGrant> {
    const rows = await runStatement<{ scope_id: string; scope: string; role: ScopeRole; listed: string[] }>(this.knex, {
      name: 'wf_create_checks',
      text: `select s.scope_id, s.scope, g.role, array(${LISTED.replace('$1', 's.scope_id').replace(/\$(\d)/g, (_, n) => `$${Number(n) + 2}`)}) as listed
        from identity_scopes s join identity_grants g on g.scope_id = s.scope_id
        where s.scope_id = $1 and s.tenant_id = $2 and s.active and g.user_id = $3`,
      values: [scopeIdOf(scope), p.tenantId, p.userId, ...listingParams(f)],
    });
    const grant = assertEditable(p, scope, grantOrNotFound(scope, rows[0]));
    assertListed(new Set(rows[0].listed), f);
    return grant;
  }

  /**
   * editableScopeListing as a command guard (see CommandGuard): the grant, the role and every listing
   * id checked inside the create's append. The guard row is the caller's role in the scope.
   */
  editableScopeListingGuard(p: Principal, scope: string, f: ListingRefs): CommandGuard<{ role: ScopeRole }> {
    const [companies, jurisdictions, products] = listingParams(f);
    const keys = [...companies.map((id) => `company:${id}`), ...jurisdictions.map((id) => `jurisdiction:${id}`), ...products.map((id) => `product:${id}`)];
    return {
      append: { sql: CREATE_GUARD, values: [scopeIdOf(scope), p.tenantId, p.userId, companies, jurisdictions, products, p.readOnly, keys] },
      fromRow: (row) => ({ role: row.role as ScopeRole }),
      check: async () => ({ role: (await this.editableScopeListing(p, scope, f)).role }),
    };
  }

  /** Artifacts of one scope by id, with their current version; unknown ones (or another scope's) are absent. */
  async artifacts(scopeId: string, ids: string[]): Promise<Map<string, ArtifactRef>> {
    const uniq = [...new Set(ids)];
    if (!uniq.length) return new Map();
    const rows = await runStatement<{ id: string; name: string; scope_id: string; current_version_id: string; current_version_number: number }>(this.knex, {
      name: 'wf_scope_artifacts',
      text: `select id, name, scope_id, current_version_id, current_version_number from working_artifacts
        where scope_id = $1 and id = any($2::uuid[]) and current_version_id is not null`,
      values: [scopeId, uniq],
    });
    return new Map(rows.map((r) => [r.id, { id: r.id, name: r.name, scopeId: r.scope_id, currentVersionId: r.current_version_id, currentVersionNumber: r.current_version_number }]));
  }

  /**
   * `artifacts` for one command that may be decided more than once (last write wins re-decides on a
   * version conflict): each id is looked up once, so a re-decision asks only about ids it has not seen.
   */
  artifactsOnce(scopeId: string): (ids: string[]) => Promise<Map<string, ArtifactRef>> {
    const seen = new Map<string, ArtifactRef | null>();
    return async (ids) => {
      const unseen = [...new Set(ids)].filter((id) => !seen.has(id));
      if (unseen.length) {
        const found = await this.artifacts(scopeId, unseen);
        for (const id of unseen) seen.set(id, found.get(id) ?? null);
      }
      return new Map(ids.flatMap((id) => (seen.get(id) ? [[id, seen.get(id)!] as const] : [])));
    };
  }
}
