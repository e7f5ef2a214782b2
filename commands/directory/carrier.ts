import { DomainError } from '../../src/domain/errors';
import type { CarrierRecord } from '../../src/domain/directory-records';
import { snapshotDecider } from './snapshot-decider';

export const carrierDecider = snapshotDecider('CarrierImported', 'CarrierUpdated', (r: CarrierRecord) => {
  // A carrier merged into itself would make id resolution loop.
  if (r.mergedInto === r.id) throw new DomainError('invalid_request', `carrier ${r.id} cannot be merged into itself`, 400);
});
