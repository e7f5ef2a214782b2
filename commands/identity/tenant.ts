import { DomainError } from '../../src/domain/errors';
import { assertNever, type Decider } from '../../src/domain/decider';
import type { TenantEvent } from '../../src/domain/events/identity';

export type TenantCommand =
  | { type: 'CreateTenant'; tenantId: string; name: string; datasets: string[]; sharing: boolean }
  | { type: 'SetTenantSharing'; sharing: boolean }
  | { type: 'SetTenantDatasets'; datasets: string[] };

export interface TenantState {
  exists: boolean;
  tenantId: string | null;
  sharing: boolean;
  datasets: string[];
}

export const KNOWN_DATASETS = ['naic'];

export const tenantDecider: Decider<TenantState, TenantCommand, TenantEvent> = {
  initialState: () => ({ exists: false, tenantId: null, sharing: false, datasets: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'TenantCreated':
        return { exists: true, tenantId: event.data.tenantId, sharing: event.data.sharing, datasets: event.data.datasets };
      case 'TenantSharingChanged':
        return { ...state, sharing: event.data.sharing };
      case 'TenantDatasetsChanged':
        return { ...state, datasets: event.data.datasets };
      default:
        return assertNever(event);
    }
  },
  decide(state, cmd) {
    switch (cmd.type) {
      case 'CreateTenant': {
        if (state.exists) throw new DomainError('already_exists', `tenant ${cmd.tenantId} already exists`);
        if (!cmd.name.trim()) throw new DomainError('invalid_request', 'a tenant needs a name', 400);
        const unknown = cmd.datasets.filter((d) => !KNOWN_DATASETS.includes(d));
        if (unknown.length) throw new DomainError('invalid_request', `unknown dataset(s): ${unknown.join(', ')}`, 400);
        return [{ type: 'TenantCreated', data: { tenantId: cmd.tenantId, name: cmd.name, datasets: [...new Set(cmd.datasets)], sharing: cmd.sharing } }];
      }
      case 'SetTenantSharing':
        if (!state.exists) throw new DomainError('not_found', 'no such tenant', 404);
        return state.sharing === cmd.sharing ? [] : [{ type: 'TenantSharingChanged', data: { tenantId: state.tenantId!, sharing: cmd.sharing } }];
      case 'SetTenantDatasets': {
        if (!state.exists) throw new DomainError('not_found', 'no such tenant', 404);
        const unknown = cmd.datasets.filter((d) => !KNOWN_DATASETS.includes(d));
        if (unknown.length) throw new DomainError('invalid_request', `unknown dataset(s): ${unknown.join(', ')}`, 400);
        const next = [...new Set(cmd.datasets)].sort();
        return JSON.stringify(next) === JSON.stringify([...state.datasets].sort())
          ? []
          : [{ type: 'TenantDatasetsChanged', data: { tenantId: state.tenantId!, datasets: next } }];
      }
      default:
        return assertNever(cmd);
    }
  },
};
