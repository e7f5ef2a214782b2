import { DomainError } from '../../src/domain/errors';
import type { CarrierGroupRecord } from '../../src/domain/directory-records';
import { snapshotDecider } from './snapshot-decider';

export const carrierGroupDecider = snapshotDecider('CarrierGroupImported', 'CarrierGroupUpdated', (r: CarrierGroupRecord) => {
  // The group filter matches catalog filings by NAIC group code: two registrations of one scheme would be ambiguous.
  const naic = r.identifiers.filter((i) => i.scheme === 'naic_group');
  if (naic.length > 1) throw new DomainError('invalid_request', `carrier group ${r.id} has more than one naic_group identifier`, 400);
});
