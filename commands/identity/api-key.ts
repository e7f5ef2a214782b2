import { DomainError } from '../../src/domain/errors';
import { assertNever, type Decider } from '../../src/domain/decider';
import type { ApiKeyEvent } from '../../src/domain/events/identity';

export type ApiKeyCommand =
  | { type: 'IssueApiKey'; keyId: string; userId: string; userTenantId: string | null; secretHash: string; readOnly: boolean; permissions: string[] }
  | { type: 'RevokeApiKey' };

export interface ApiKeyState {
  exists: boolean;
  keyId: string | null;
  revoked: boolean;
}

export const KNOWN_PERMISSIONS = ['serff:view'];

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ exists: false, keyId: null, revoked: false }),
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyIssued':
        return { exists: true, keyId: event.data.keyId, revoked: false };
      case 'ApiKeyRevoked':
        return { ...state, revoked: true };
      default:
        return assertNever(event);
    }
  },
  decide(state, cmd) {
    switch (cmd.type) {
      case 'IssueApiKey': {
        if (state.exists) throw new DomainError('already_exists', 'key already exists');
        if (!cmd.userTenantId) throw new DomainError('not_found', `no such user: ${cmd.userId}`, 404);
        const unknown = cmd.permissions.filter((p) => !KNOWN_PERMISSIONS.includes(p));
        if (unknown.length) throw new DomainError('invalid_request', `unknown permission(s): ${unknown.join(', ')}`, 400);
        return [
          {
            type: 'ApiKeyIssued',
            data: { keyId: cmd.keyId, userId: cmd.userId, tenantId: cmd.userTenantId, secretHash: cmd.secretHash, readOnly: cmd.readOnly, permissions: [...new Set(cmd.permissions)] },
          },
        ];
      }
      case 'RevokeApiKey':
        if (!state.exists) throw new DomainError('not_found', 'no such key', 404);
        return state.revoked ? [] : [{ type: 'ApiKeyRevoked', data: { keyId: state.keyId! } }];
      default:
        return assertNever(cmd);
    }
  },
};
