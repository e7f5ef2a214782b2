import type { Knex } from 'knex';
import { forbidden, notFound } from '../../domain/errors';
import type { Principal, ScopeRole } from '../../domain/principal';
import { runStatement } from '../../../infra/postgres/prepared';
import type { CommandGuard } from '../../ports/command-guard';
import type { ManagedFilingState } from '../../domain/managed-filing-state';
import { artifactIdsOf, currentArtifactsFromJson, currentArtifactsSql, type CurrentArtifact } from './current-artifacts';

export interface Permissions {
  read: boolean;
  edit: boolean;
  manageAccess: boolean;
}

export interface ScopeGrant {
  scopeId: string;
  scope: string;
  role: ScopeRole;
}

export interface FilingAccess {
  row: Record<string, any>;
  permissions: Permissions;
  /** The caller's role in the filing's own scope; null when it sees the filing only through sharing. */
  role: ScopeRole | null;
}

export const SCOPE_PATTERN = /^mc:[A-Za-z0-9][A-Za-z0-9-]{0,127}$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Who may see and change which working filing: the read-side port both the commands (before they
 * decide) and the queries (on every page) ask. It reads the identity read model directly, not the
 * principal's cached copy, so a deactivated scope or a changed sharing mode counts at once.
 */
export class FilingAccessService {
  constructor(private readonly knex: Knex) {}

  /** Active scopes of the caller's tenant where the caller holds a role, by scope UUID ascending. */
  async grants(p: Principal): Promise<ScopeGrant[]> {
    const rows = await this.knex('identity_scopes as s')
      .join('identity_grants as g', 'g.scope_id', 's.scope_id')
      .where({ 's.tenant_id': p.tenantId, 's.active': true, 'g.user_id': p.userId })
      .orderBy('s.scope_id')
      .select('s.scope_id', 's.scope', 'g.role');
    return rows.map((r) => ({ scopeId: r.scope_id, scope: r.scope, role: r.role }));
  }

  /** The tenant's current sharing mode (not the 2-second authentication cache). */
  async sharing(p: Principal): Promise<boolean> {
    const row = await this.knex('identity_tenants').where({ id: p.tenantId }).first('sharing');
    return Boolean(row?.sharing);
  }

  /**
   * The caller's grant in a scope named in a request. 404 for a scope it cannot see (malformed UUID,
   * unknown, another tenant's, inactive, or no role); the grant otherwise.
   */
  async grantIn(p: Principal, scope: string): Promise<ScopeGrant> {
    const rows = await runStatement<{ scope_id: string; scope: string; role: ScopeRole }>(this.knex, {
      name: 'wf_grant_in',
      text: `select s.scope_id, s.scope, g.role from identity_scopes s join identity_grants g on g.scope_id = s.scope_id
        where s.scope_id = $1 and s.tenant_id = $2 and s.active and g.user_id = $3`,
      values: [scopeIdOf(scope), p.tenantId, p.userId],
    });
    return grantOrNotFound(scope, rows[0]);
  }

  /** Like grantIn, and 403 when the caller sees the scope but may not change anything in it. */
  async editableScope(p: Principal, scope: string): Promise<ScopeGrant> {
    return assertEditable(p, scope, await this.grantIn(p, scope));
  }

  permissionsFor(p: Principal, filingMode: string | null, role: ScopeRole | null): Permissions {
    const canChange = !p.readOnly && role !== null && role !== 'viewer';
    return { read: true, edit: canChange && filingMode === 'managed', manageAccess: !p.readOnly && role === 'manager' };
  }

  /** The filing as the caller may see it; 404 when it does not exist or is not visible. */
  async filing(p: Principal, filingId: string): Promise<FilingAccess> {
    if (!UUID.test(filingId)) throw notFound('The filing does not exist or is not visible to this caller.');
    // The filing and the caller's role in its home scope in one round trip: the common case, a filing
    // of the caller's own tenant, needs nothing more (this runs before every write and every GET).
    const res = await runStatement<Record<string, any>>(this.knex, {
      name: 'wf_filing_access',
      text: `select f.*, g.role as caller_role__ from managed_filings f
        left join identity_scopes s on s.scope_id = f.scope_id and s.tenant_id = $1 and s.active
        left join identity_grants g on g.scope_id = s.scope_id and g.user_id = $2
        where f.id = $3`,
      values: [p.tenantId, p.userId, filingId],
    });
    const found = res[0] as Record<string, any> | undefined;
    if (found) {
      const { caller_role__: ownRole, ...row } = found;
      if (row.tenant_id === p.tenantId) {
        if (ownRole) return { row, role: ownRole, permissions: this.permissionsFor(p, row.filing_mode, ownRole) };
        throw notFound('The filing does not exist or is not visible to this caller.');
      }
      const grants = await this.grants(p);
      if (grants.length && (await this.sharing(p))) {
        // Shared in from another tenant: visible (read only) while its home scope is active and it is
        // shared into an active scope of this tenant where the caller holds a role.
        const home = await this.knex('identity_scopes').where({ scope_id: row.scope_id }).first('active');
        const shared =
          home?.active &&
          (await this.knex('managed_filing_shares')
            .where('filing_id', filingId)
            .whereIn(
              'scope_id',
              grants.map((g) => g.scopeId),
            )
            .first('scope_id'));
        if (shared) return { row, role: null, permissions: { read: true, edit: false, manageAccess: false } };
      }
    }
    throw notFound('The filing does not exist or is not visible to this caller.');
  }

  /**
   * editableFiling as a command guard (see CommandGuard): checked inside the append where the store
   * can, so an ordinary write costs one round trip. The guard row is the caller's role; its `ok` is
   * editableFiling's "no refusal" for a filing of the caller's own tenant (anything else, shared-in
   * filings too, is refused and editableFiling then says why).
   */
  editableFilingGuard(p: Principal, filingId: string): CommandGuard<{ role: ScopeRole }> {
    return {
      append: { sql: EDITABLE_FILING_GUARD, values: editableFilingGuardValues(p, filingId) },
      fromRow: (row) => ({ role: row.role as ScopeRole }),
      check: async () => ({ role: (await this.editableFiling(p, filingId)).role! }),
    };
  }

  /**
   * editableFilingGuard for a write answered with the item `itemId`: the guard's row also holds the
   * current artifacts (of the filing's scope) that the resulting item names, so the answer shows
   * current versions without another round trip. `artifacts` is null when the guard was checked on its
   * own (a store without guarded appends): the caller then looks them up.
   */
  editableItemGuard(p: Principal, filingId: string, itemId: string): CommandGuard<{ role: ScopeRole; artifacts: Map<string, CurrentArtifact> | null }, ManagedFilingState> {
    const values = editableFilingGuardValues(p, filingId);
    return {
      // The decider refuses an unknown item before any append, so the item is there when this runs.
      append: (after) => ({ sql: EDITABLE_ITEM_GUARD, values: [...values, artifactIdsOf(after.items[itemId])] }),
      fromRow: (row) => ({ role: row.role as ScopeRole, artifacts: currentArtifactsFromJson(row.artifacts) }),
      check: async () => ({ role: (await this.editableFiling(p, filingId)).role!, artifacts: null }),
    };
  }

  /** The filing, when the caller may change it: 404 if it cannot see it, 403 if it can see but not change it. */
  async editableFiling(p: Principal, filingId: string): Promise<FilingAccess> {
    const a = await this.filing(p, filingId);
    if (p.readOnly) throw forbidden('A read-only API key cannot change working filings.');
    if (a.role === null) throw forbidden('The filing is shared into this tenant read-only.');
    if (a.role === 'viewer') throw forbidden("The caller's role in the filing's scope is viewer; changes need editor or manager.");
    if (a.row.filing_mode !== 'managed') throw forbidden(`The filing is ${a.row.filing_mode === 'reference' ? 'a reference' : 'a legacy (unclassified)'} filing and read-only.`);
    return a;
  }
}

/** The parameters of editableFilingGuardSql; 404 for a filing id that cannot name a filing. */
function editableFilingGuardValues(p: Principal, filingId: string): unknown[] {
  if (!UUID.test(filingId)) throw notFound('The filing does not exist or is not visible to this caller.');
  return [p.tenantId, p.userId, filingId, p.readOnly];
}

/** `$1` tenant, `$2` user, `$3` filing, `$4` read-only key: editableFiling's conditions, as one row with `ok`, `role` and `extra` columns. */
const editableFilingGuardSql = (extra = '') => `select (f.tenant_id = $1 and g.role in ('editor', 'manager') and f.filing_mode = 'managed' and not $4::boolean) as ok, g.role${extra}
  from managed_filings f
  left join identity_scopes s on s.scope_id = f.scope_id and s.tenant_id = $1 and s.active
  left join identity_grants g on g.scope_id = s.scope_id and g.user_id = $2
  where f.id = $3::uuid`;
const EDITABLE_FILING_GUARD = editableFilingGuardSql();
/** EDITABLE_FILING_GUARD and `artifacts`: the current artifacts of the filing's scope among the ids `$5`. */
const EDITABLE_ITEM_GUARD = editableFilingGuardSql(`, ${currentArtifactsSql('$5::uuid[]', 'f.scope_id')} as artifacts`);

/** The UUID of a scope named in a request; 404 when it is malformed (it cannot name a visible scope). */
export function scopeIdOf(scope: string): string {
  const id = scope.slice(3);
  if (!SCOPE_PATTERN.test(scope) || !UUID.test(id)) throw notFound(`Scope ${scope} does not exist or is not visible to this caller.`);
  return id;
}

/** The caller's grant from a look-up row of its scope and grant; 404 when there is none. */
export function grantOrNotFound(scope: string, row: { scope_id: string; scope: string; role: ScopeRole } | undefined): ScopeGrant {
  if (!row) throw notFound(`Scope ${scope} does not exist or is not visible to this caller.`);
  return { scopeId: row.scope_id, scope: row.scope, role: row.role };
}

/** 403 when the caller sees the scope but may not change anything in it (read-only key, viewer). */
export function assertEditable(p: Principal, scope: string, grant: ScopeGrant): ScopeGrant {
  if (p.readOnly) throw forbidden('A read-only API key cannot change working filings or files.');
  if (grant.role === 'viewer') throw forbidden(`The caller's role in ${scope} is viewer; changes need editor or manager.`);
  return grant;
}
