import { assertNever, type Decider } from '../../src/domain/decider';
import { DomainError } from '../../src/domain/errors';
import type { ListingEntry, ListingKind, ScopeListingEvent } from '../../src/domain/events/scope-listings';

export type ScopeListingCommand = { type: 'RecordEntry'; entry: ListingEntry };

export interface ScopeListingState {
  entry: ListingEntry | null;
}

export const STREAM_CATEGORY: Record<ListingKind, string> = { company: 'scopeCompany', jurisdiction: 'scopeJurisdiction', product: 'scopeProduct' };

export const scopeListingDecider: Decider<ScopeListingState, ScopeListingCommand, ScopeListingEvent> = {
  initialState: () => ({ entry: null }),
  evolve(_state, event) {
    switch (event.type) {
      case 'ScopeListingEntryRecorded':
        return { entry: event.data };
      default:
        return assertNever(event.type);
    }
  },
  decide(state, cmd) {
    const prev = state.entry;
    if (prev && prev.scopeId !== cmd.entry.scopeId) throw new DomainError('conflict', `${cmd.entry.kind} ${cmd.entry.id} belongs to ${prev.scope}; an entry cannot move to another scope.`, 409);
    if (prev && prev.name === cmd.entry.name && prev.code === cmd.entry.code) return [];
    return [{ type: 'ScopeListingEntryRecorded', data: cmd.entry }];
  },
};
