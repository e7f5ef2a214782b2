import { DomainError } from '../../src/domain/errors';
import { assertNever, type Decider } from '../../src/domain/decider';
import type { UserEvent } from '../../src/domain/events/identity';

export type UserCommand = { type: 'CreateUser'; userId: string; tenantId: string; tenantExists: boolean; name: string; email: string | null };

export interface UserState {
  exists: boolean;
  tenantId: string | null;
}

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ exists: false, tenantId: null }),
  evolve(_state, event) {
    switch (event.type) {
      case 'UserCreated':
        return { exists: true, tenantId: event.data.tenantId };
      default:
        return assertNever(event.type);
    }
  },
  decide(state, cmd) {
    if (state.exists) throw new DomainError('already_exists', 'user already exists');
    if (!cmd.tenantExists) throw new DomainError('not_found', `no such tenant: ${cmd.tenantId}`, 404);
    if (!cmd.name.trim()) throw new DomainError('invalid_request', 'a user needs a name', 400);
    if (cmd.email !== null && !/^[^@\s]+@[^@\s]+$/.test(cmd.email)) throw new DomainError('invalid_request', `not an email address: ${cmd.email}`, 400);
    return [{ type: 'UserCreated', data: { userId: cmd.userId, tenantId: cmd.tenantId, name: cmd.name, email: cmd.email } }];
  },
};
