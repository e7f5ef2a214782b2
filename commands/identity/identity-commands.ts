import crypto from 'node:crypto';
import type { CommandHandler } from '../command-handler';
import type { EventMetadata } from '../../src/domain/events';
import { DomainError } from '../../src/domain/errors';
import type { ScopeRole } from '../../src/domain/principal';
import { hashApiKey, newApiKey } from '../../src/domain/api-keys';
import { tenantDecider } from './tenant';
import { scopeDecider } from './scope';
import { userDecider } from './user';
import { apiKeyDecider } from './api-key';
import { IDENTITY_PROJECTION } from '../../src/read-models/identity';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function parseScope(scope: string): string {
  const id = scope.startsWith('mc:') ? scope.slice(3) : scope;
  if (!UUID.test(id)) throw new DomainError('invalid_request', `not a scope (mc:<uuid>): ${scope}`, 400);
  return id;
}

/** The operator's identity commands (tenants, scopes, users, grants, keys), all as events. */
export class IdentityCommands {
  constructor(private readonly handler: CommandHandler) {}

  private opts(metadata: EventMetadata) {
    return { metadata, waitFor: [IDENTITY_PROJECTION] };
  }

  async createTenant(input: { name: string; datasets: string[]; sharing: boolean; tenantId?: string }, meta: EventMetadata) {
    const tenantId = input.tenantId ?? crypto.randomUUID();
    await this.handler.execute(tenantDecider, `tenant-${tenantId}`, { type: 'CreateTenant', tenantId, name: input.name, datasets: input.datasets, sharing: input.sharing }, this.opts({ ...meta, tenantId }));
    return { tenantId };
  }

  async setTenantSharing(tenantId: string, sharing: boolean, meta: EventMetadata) {
    await this.handler.execute(tenantDecider, `tenant-${tenantId}`, { type: 'SetTenantSharing', sharing }, this.opts({ ...meta, tenantId }));
    return { tenantId, sharing };
  }

  async createScope(input: { tenantId: string; name: string | null; scopeId?: string }, meta: EventMetadata) {
    const tenant = await this.handler.load(tenantDecider, `tenant-${input.tenantId}`);
    if (!tenant.state.exists) throw new DomainError('not_found', `no such tenant: ${input.tenantId}`, 404);
    const scopeId = input.scopeId ?? crypto.randomUUID();
    await this.handler.execute(scopeDecider, `scope-${scopeId}`, { type: 'CreateScope', scopeId, tenantId: input.tenantId, name: input.name }, this.opts({ ...meta, tenantId: input.tenantId }));
    return { scope: `mc:${scopeId}` };
  }

  async deactivateScope(scope: string, meta: EventMetadata) {
    const scopeId = parseScope(scope);
    await this.handler.execute(scopeDecider, `scope-${scopeId}`, { type: 'DeactivateScope' }, this.opts(meta));
    return { scope: `mc:${scopeId}`, active: false as const };
  }

  async createUser(input: { tenantId: string; name: string; email: string | null; userId?: string }, meta: EventMetadata) {
    const tenant = await this.handler.load(tenantDecider, `tenant-${input.tenantId}`);
    const userId = input.userId ?? crypto.randomUUID();
    await this.handler.execute(
      userDecider,
      `user-${userId}`,
      { type: 'CreateUser', userId, tenantId: input.tenantId, tenantExists: tenant.state.exists, name: input.name, email: input.email },
      this.opts({ ...meta, tenantId: input.tenantId }),
    );
    return { userId };
  }

  async grant(input: { scope: string; userId: string; role: ScopeRole }, meta: EventMetadata) {
    const scopeId = parseScope(input.scope);
    const user = await this.handler.load(userDecider, `user-${input.userId}`);
    await this.handler.execute(
      scopeDecider,
      `scope-${scopeId}`,
      { type: 'GrantRole', userId: input.userId, userTenantId: user.state.tenantId, role: input.role },
      this.opts({ ...meta, tenantId: user.state.tenantId }),
    );
    return { scope: `mc:${scopeId}`, userId: input.userId, role: input.role };
  }

  async createKey(input: { userId: string; readOnly: boolean; permissions: string[] }, meta: EventMetadata) {
    const user = await this.handler.load(userDecider, `user-${input.userId}`);
    const { keyId, apiKey } = newApiKey();
    await this.handler.execute(
      apiKeyDecider,
      `apiKey-${keyId}`,
      { type: 'IssueApiKey', keyId, userId: input.userId, userTenantId: user.state.tenantId, secretHash: hashApiKey(apiKey), readOnly: input.readOnly, permissions: input.permissions },
      this.opts({ ...meta, tenantId: user.state.tenantId }),
    );
    return { keyId, apiKey };
  }

  async revokeKey(keyId: string, meta: EventMetadata) {
    await this.handler.execute(apiKeyDecider, `apiKey-${keyId}`, { type: 'RevokeApiKey' }, this.opts(meta));
    return { keyId, revoked: true as const };
  }
}
