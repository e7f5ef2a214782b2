import type { ScopeRole } from '../principal';

/** Identity events: tenants, scopes and their grants, users, API keys. Streams `tenant-`, `scope-`, `user-`, `apiKey-<id>`. */

export type TenantEvent =
  | { type: 'TenantCreated'; data: { tenantId: string; name: string; datasets: string[]; sharing: boolean } }
  | { type: 'TenantSharingChanged'; data: { tenantId: string; sharing: boolean } }
  | { type: 'TenantDatasetsChanged'; data: { tenantId: string; datasets: string[] } };

export type ScopeEvent =
  | { type: 'ScopeCreated'; data: { scope: string; scopeId: string; tenantId: string; name: string | null } }
  | { type: 'ScopeDeactivated'; data: { scope: string } }
  | { type: 'ScopeRoleGranted'; data: { scope: string; userId: string; role: ScopeRole } };

export type UserEvent = { type: 'UserCreated'; data: { userId: string; tenantId: string; name: string; email: string | null } };

export type ApiKeyEvent =
  | { type: 'ApiKeyIssued'; data: { keyId: string; userId: string; tenantId: string; secretHash: string; readOnly: boolean; permissions: string[] } }
  | { type: 'ApiKeyRevoked'; data: { keyId: string } };

export type IdentityEvent = TenantEvent | ScopeEvent | UserEvent | ApiKeyEvent;
