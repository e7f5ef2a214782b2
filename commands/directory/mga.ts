import { DomainError } from '../../src/domain/errors';
import type { MgaRecord } from '../../src/domain/directory-records';
import { snapshotDecider } from './snapshot-decider';

export const mgaDecider = snapshotDecider('MgaImported', 'MgaUpdated', (r: MgaRecord) => {
  // One link per carrier: the link's role and source notes must not contradict each other.
  const seen = new Set<string>();
  for (const l of r.carriers) {
    if (seen.has(l.carrierId)) throw new DomainError('invalid_request', `mga ${r.id} links carrier ${l.carrierId} twice`, 400);
    seen.add(l.carrierId);
  }
});
