import { DomainError } from '../../src/domain/errors';
import type { CarrierRecord } from './directory-records';
import { snapshotDecider, type SnapshotEvent } from './snapshot-decider';

/** Stream `carrier-<id>`. */
export type CarrierEvent = SnapshotEvent<'CarrierImported', 'CarrierUpdated', CarrierRecord>;
export const CARRIER_EVENT_TYPES: CarrierEvent['type'][] = ['CarrierImported', 'CarrierUpdated'];

export const carrierDecider = snapshotDecider('CarrierImported', 'CarrierUpdated', (r: CarrierRecord) => {
  // A carrier merged into itself would make id resolution loop.
  if (r.mergedInto === r.id) throw new DomainError('invalid_request', `carrier ${r.id} cannot be merged into itself`, 400);
});
