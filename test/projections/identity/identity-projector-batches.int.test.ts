import assert from 'node:assert/strict';
import { IdentityProjector } from '../../../projections/identity/identity-projector';
import { ProjectorBench, inStreams } from '../../support/projector-batches';

describe('identity projector: batches', function () {
  this.timeout(120_000);
  let bench: ProjectorBench;
  before(async () => (bench = await ProjectorBench.open()));
  after(async () => bench.close());

  it('rule: creations, changes and revocations in one batch apply in log order (a key issued then revoked stays revoked)', async () => {
    const scopeId = '5f0c3a57-56c4-4a57-9a39-3b3e3f1f6a01';
    const events = inStreams([
      { stream: 'tenant-t1', type: 'TenantCreated', data: { tenantId: 't1', name: 'T', datasets: [], sharing: false } },
      { stream: 'tenant-t1', type: 'TenantSharingChanged', data: { tenantId: 't1', sharing: true } },
      { stream: 'tenant-t2', type: 'TenantCreated', data: { tenantId: 't2', name: 'T2', datasets: ['naic'], sharing: false } },
      { stream: 'tenant-t1', type: 'TenantDatasetsChanged', data: { tenantId: 't1', datasets: ['naic'] } },
      ...Array.from({ length: 7 }, (_, i) => ({ stream: `user-u${i}`, type: 'UserCreated', data: { userId: `u${i}`, tenantId: 't1', name: `U${i}`, email: null } })),
      { stream: `scope-${scopeId}`, type: 'ScopeCreated', data: { scopeId, scope: `mc:${scopeId}`, tenantId: 't1', name: 'S' } },
      { stream: `scope-${scopeId}`, type: 'ScopeRoleGranted', data: { scope: `mc:${scopeId}`, userId: 'u1', role: 'viewer' } },
      { stream: `scope-${scopeId}`, type: 'ScopeRoleGranted', data: { scope: `mc:${scopeId}`, userId: 'u1', role: 'manager' } },
      { stream: `scope-${scopeId}`, type: 'ScopeDeactivated', data: { scope: `mc:${scopeId}` } },
      { stream: 'apiKey-k1', type: 'ApiKeyIssued', data: { keyId: 'k1', userId: 'u1', tenantId: 't1', secretHash: 'h', readOnly: false, permissions: ['serff:view'] } },
      { stream: 'apiKey-k2', type: 'ApiKeyIssued', data: { keyId: 'k2', userId: 'u2', tenantId: 't1', secretHash: 'h2', readOnly: true, permissions: [] } },
      { stream: 'apiKey-k1', type: 'ApiKeyRevoked', data: { keyId: 'k1' } },
    ]);
    const dump = await bench.assertBatchEquivalence(new IdentityProjector(), events);
    const parse = (rows: string[]) => rows.map((j) => JSON.parse(j) as Record<string, unknown>);
    const t1 = parse(dump.identity_tenants).find((t) => t.id === 't1')!;
    assert.equal(t1.sharing, true);
    assert.deepEqual(t1.datasets, ['naic']);
    assert.equal(dump.identity_users.length, 7);
    assert.equal(parse(dump.identity_grants)[0].role, 'manager');
    assert.equal(parse(dump.identity_scopes)[0].active, false);
    assert.deepEqual(parse(dump.identity_api_keys).map((k) => [k.key_id, k.revoked]), [['k1', true], ['k2', false]]);
  });
});
