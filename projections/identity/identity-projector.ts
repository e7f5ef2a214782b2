import type { Knex } from 'knex';
import type { IdentityEvent } from '../../src/domain/events/identity';
import { IDENTITY_PROJECTION } from '../../src/read-models/identity';
import { assertNever } from '../../src/domain/decider';
import type { EventCoverage, ProjectedEvent, ProjectionContext, Projector, TableNamer } from '../projector';
import { lastByKey, upsertRows } from '../batch-sql';

const HANDLES = {
  TenantCreated: 'applied',
  TenantSharingChanged: 'applied',
  TenantDatasetsChanged: 'applied',
  ScopeCreated: 'applied',
  ScopeDeactivated: 'applied',
  ScopeRoleGranted: 'applied',
  UserCreated: 'applied',
  ApiKeyIssued: 'applied',
  ApiKeyRevoked: 'applied',
} as const satisfies EventCoverage<IdentityEvent>;

/** Tenants, scopes, grants, users and key hashes: what authentication and authorization read. */
export class IdentityProjector implements Projector<IdentityEvent, typeof HANDLES> {
  readonly name = IDENTITY_PROJECTION;
  readonly version = 1;
  readonly tables = ['identity_tenants', 'identity_scopes', 'identity_users', 'identity_grants', 'identity_api_keys'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('identity_tenants')} (id text primary key, name text not null, datasets text[] not null, sharing boolean not null);
      create table ${t('identity_scopes')} (scope_id uuid primary key, scope text not null, tenant_id text not null, name text, active boolean not null);
      create index on ${t('identity_scopes')} (tenant_id, scope_id);
      create table ${t('identity_users')} (id text primary key, tenant_id text not null, name text not null, email text);
      create table ${t('identity_grants')} (scope_id uuid not null, user_id text not null, role text not null, primary key (scope_id, user_id));
      create index on ${t('identity_grants')} (user_id);
      create table ${t('identity_api_keys')} (key_id text primary key, user_id text not null, tenant_id text not null, secret_hash text not null,
        read_only boolean not null, permissions text[] not null, revoked boolean not null default false);
    `);
  }

  /**
   * Consecutive creations into one table (a rebuild replays thousands of UserCreated in a row) are
   * written as one multi-row upsert; changes of existing rows run in log order between them. Within a
   * run the last row per key wins, as the last of the sequential upserts would.
   */
  async apply({ trx, table: t }: ProjectionContext, events: ProjectedEvent<IdentityEvent, typeof HANDLES>[]): Promise<void> {
    let run: { table: string; key: string[]; keep: string[]; rows: Record<string, unknown>[] } | null = null;
    const flush = async () => {
      if (!run) return;
      const { table, key, keep, rows } = run;
      run = null;
      const update = Object.keys(rows[0]).filter((c) => !key.includes(c) && !keep.includes(c));
      await upsertRows(trx, t(table), lastByKey(rows, (r) => key.map((k) => String(r[k])).join('\u0000')), { conflict: key, update });
    };
    /** `keep`: columns an upsert of an existing row leaves alone. */
    const upsert = async (table: string, key: string[], row: Record<string, unknown>, keep: string[] = []) => {
      if (run && run.table !== table) await flush();
      run ??= { table, key, keep, rows: [] };
      run.rows.push(row);
    };
    for (const e of events) {
      switch (e.type) {
        case 'TenantCreated':
          await upsert('identity_tenants', ['id'], { id: e.data.tenantId, name: e.data.name, datasets: e.data.datasets, sharing: e.data.sharing });
          break;
        case 'TenantSharingChanged':
          await flush();
          await trx(t('identity_tenants')).where({ id: e.data.tenantId }).update({ sharing: e.data.sharing });
          break;
        case 'TenantDatasetsChanged':
          await flush();
          await trx(t('identity_tenants')).where({ id: e.data.tenantId }).update({ datasets: e.data.datasets });
          break;
        case 'ScopeCreated':
          await upsert('identity_scopes', ['scope_id'], { scope_id: e.data.scopeId, scope: e.data.scope, tenant_id: e.data.tenantId, name: e.data.name, active: true });
          break;
        case 'ScopeDeactivated':
          await flush();
          await trx(t('identity_scopes')).where({ scope: e.data.scope }).update({ active: false });
          break;
        case 'ScopeRoleGranted':
          await upsert('identity_grants', ['scope_id', 'user_id'], { scope_id: e.data.scope.slice(3), user_id: e.data.userId, role: e.data.role });
          break;
        case 'UserCreated':
          await upsert('identity_users', ['id'], { id: e.data.userId, tenant_id: e.data.tenantId, name: e.data.name, email: e.data.email });
          break;
        case 'ApiKeyIssued':
          await upsert('identity_api_keys', ['key_id'], {
            key_id: e.data.keyId,
            user_id: e.data.userId,
            tenant_id: e.data.tenantId,
            secret_hash: e.data.secretHash,
            read_only: e.data.readOnly,
            permissions: e.data.permissions,
            // Written explicitly: a multi-row insert takes no column defaults; kept on conflict, so a replayed issue never revives a key.
            revoked: false,
          }, ['revoked']);
          break;
        case 'ApiKeyRevoked':
          await flush();
          await trx(t('identity_api_keys')).where({ key_id: e.data.keyId }).update({ revoked: true });
          break;
        default:
          assertNever(e);
      }
    }
    await flush();
  }
}
