import { DomainError } from '../../src/domain/errors';
import type { ProductRecord } from '../../src/domain/directory-records';
import { snapshotDecider } from './snapshot-decider';

export const productDecider = snapshotDecider('ProductImported', 'ProductUpdated', (r: ProductRecord) => {
  if (r.predecessorProductId === r.id) throw new DomainError('invalid_request', `product ${r.id} cannot be its own predecessor`, 400);
  // Availability is one row per state: the filters match carrier, state, TOI and sub-TOI within one row.
  const states = new Set<string>();
  for (const a of r.availability) {
    if (states.has(a.state)) throw new DomainError('invalid_request', `product ${r.id} lists state ${a.state} twice in availability`, 400);
    states.add(a.state);
  }
});
