import { apiKeyDecider } from '../../../commands/identity/api-key';
import { scopeDecider } from '../../../commands/identity/scope';
import { tenantDecider } from '../../../commands/identity/tenant';
import { userDecider } from '../../../commands/identity/user';
import { spec } from '../../support/decider-spec';


const T = 'tenant-1';
const tenantCreated = { type: 'TenantCreated' as const, data: { tenantId: T, name: 'Acme', datasets: ['naic'], sharing: false } };

describe('identity deciders', () => {
  const tenant = spec(tenantDecider);
  const scope = spec(scopeDecider);
  const user = spec(userDecider);
  const key = spec(apiKeyDecider);

  it('a tenant is created once, with known datasets only', () => {
    tenant([], { type: 'CreateTenant', tenantId: T, name: 'Acme', datasets: ['naic', 'naic'], sharing: false }).then([tenantCreated]);
    tenant([tenantCreated], { type: 'CreateTenant', tenantId: T, name: 'Acme', datasets: [], sharing: false }).thenError('already_exists');
    tenant([], { type: 'CreateTenant', tenantId: T, name: 'Acme', datasets: ['bogus'], sharing: false }).thenError('invalid_request');
  });

  it('changing sharing to what it already is appends nothing', () => {
    tenant([tenantCreated], { type: 'SetTenantSharing', sharing: false }).then([]);
    tenant([tenantCreated], { type: 'SetTenantSharing', sharing: true }).then([{ type: 'TenantSharingChanged', data: { tenantId: T, sharing: true } }]);
  });

  const scopeCreated = { type: 'ScopeCreated' as const, data: { scope: 'mc:00000000-0000-4000-8000-000000000001', scopeId: '00000000-0000-4000-8000-000000000001', tenantId: T, name: null } };

  it('a grant needs a user of the same tenant; regranting the same role appends nothing', () => {
    scope([scopeCreated], { type: 'GrantRole', userId: 'u1', userTenantId: T, role: 'editor' }).then([{ type: 'ScopeRoleGranted', data: { scope: scopeCreated.data.scope, userId: 'u1', role: 'editor' } }]);
    scope([scopeCreated], { type: 'GrantRole', userId: 'u1', userTenantId: 'other', role: 'editor' }).thenError('forbidden');
    scope([scopeCreated], { type: 'GrantRole', userId: 'u1', userTenantId: null, role: 'editor' }).thenError('not_found');
    scope([scopeCreated, { type: 'ScopeRoleGranted', data: { scope: scopeCreated.data.scope, userId: 'u1', role: 'editor' } }], { type: 'GrantRole', userId: 'u1', userTenantId: T, role: 'editor' }).then([]);
  });

  it('a scope is deactivated once', () => {
    scope([scopeCreated], { type: 'DeactivateScope' }).then([{ type: 'ScopeDeactivated', data: { scope: scopeCreated.data.scope } }]);
    scope([scopeCreated, { type: 'ScopeDeactivated', data: { scope: scopeCreated.data.scope } }], { type: 'DeactivateScope' }).then([]);
    scope([], { type: 'DeactivateScope' }).thenError('not_found');
  });

  it('a user needs an existing tenant and a plausible email', () => {
    user([], { type: 'CreateUser', userId: 'u1', tenantId: T, tenantExists: false, name: 'Ana', email: null }).thenError('not_found');
    user([], { type: 'CreateUser', userId: 'u1', tenantId: T, tenantExists: true, name: 'Ana', email: 'not-an-email' }).thenError('invalid_request');
    user([], { type: 'CreateUser', userId: 'u1', tenantId: T, tenantExists: true, name: 'Ana', email: 'ana@example.com' }).then([
      { type: 'UserCreated', data: { userId: 'u1', tenantId: T, name: 'Ana', email: 'ana@example.com' } },
    ]);
  });

  it('a key is issued for an existing user with known permissions, and revoked once', () => {
    const issue = { type: 'IssueApiKey' as const, keyId: 'k', userId: 'u1', userTenantId: T, secretHash: 'h', readOnly: true, permissions: ['serff:view'] };
    const issued = { type: 'ApiKeyIssued' as const, data: { keyId: 'k', userId: 'u1', tenantId: T, secretHash: 'h', readOnly: true, permissions: ['serff:view'] } };
    key([], issue).then([issued]);
    key([], { ...issue, userTenantId: null }).thenError('not_found');
    key([], { ...issue, permissions: ['root'] }).thenError('invalid_request');
    key([issued], { type: 'RevokeApiKey' }).then([{ type: 'ApiKeyRevoked', data: { keyId: 'k' } }]);
    key([issued, { type: 'ApiKeyRevoked', data: { keyId: 'k' } }], { type: 'RevokeApiKey' }).then([]);
  });
});
