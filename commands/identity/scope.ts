import { DomainError } from '../../src/domain/errors';
import { assertNever, type Decider } from '../../src/domain/decider';
import type { ScopeRole } from '../../src/domain/principal';
import type { ScopeEvent } from '../../src/domain/events/identity';

export type ScopeCommand =
  | { type: 'CreateScope'; scopeId: string; tenantId: string; name: string | null }
  | { type: 'DeactivateScope' }
  /** userTenantId: the grantee's tenant, looked up by the command layer from the user's stream. */
  | { type: 'GrantRole'; userId: string; userTenantId: string | null; role: ScopeRole };

export interface ScopeState {
  exists: boolean;
  scope: string | null;
  tenantId: string | null;
  active: boolean;
  roles: Record<string, ScopeRole>;
}

export const scopeDecider: Decider<ScopeState, ScopeCommand, ScopeEvent> = {
  initialState: () => ({ exists: false, scope: null, tenantId: null, active: false, roles: {} }),
  evolve(state, event) {
    switch (event.type) {
      case 'ScopeCreated':
        return { exists: true, scope: event.data.scope, tenantId: event.data.tenantId, active: true, roles: {} };
      case 'ScopeDeactivated':
        return { ...state, active: false };
      case 'ScopeRoleGranted':
        return { ...state, roles: { ...state.roles, [event.data.userId]: event.data.role } };
      default:
        return assertNever(event);
    }
  },
  decide(state, cmd) {
    switch (cmd.type) {
      case 'CreateScope':
        if (state.exists) throw new DomainError('already_exists', 'scope already exists');
        return [{ type: 'ScopeCreated', data: { scope: `mc:${cmd.scopeId}`, scopeId: cmd.scopeId, tenantId: cmd.tenantId, name: cmd.name } }];
      case 'DeactivateScope':
        if (!state.exists) throw new DomainError('not_found', 'no such scope', 404);
        return state.active ? [{ type: 'ScopeDeactivated', data: { scope: state.scope! } }] : [];
      case 'GrantRole':
        if (!state.exists) throw new DomainError('not_found', 'no such scope', 404);
        if (!cmd.userTenantId) throw new DomainError('not_found', `no such user: ${cmd.userId}`, 404);
        if (cmd.userTenantId !== state.tenantId) throw new DomainError('forbidden', 'the user belongs to another tenant than the scope', 403);
        return state.roles[cmd.userId] === cmd.role ? [] : [{ type: 'ScopeRoleGranted', data: { scope: state.scope!, userId: cmd.userId, role: cmd.role } }];
      default:
        return assertNever(cmd);
    }
  },
};
