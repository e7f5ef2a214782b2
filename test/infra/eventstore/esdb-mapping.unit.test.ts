import assert from 'node:assert/strict';
import { ANY, NO_STREAM } from '@eventstore/db-client';
import { toExpectedRevision } from '../../../infra/eventstore/esdb-event-store';

describe('EventStoreDB adapter mapping (no server)', () => {
  it("rule: our version N is ESDB revision N-1; 0 is NO_STREAM; 'any' is ANY", () => {
    assert.equal(toExpectedRevision(0), NO_STREAM);
    assert.equal(toExpectedRevision('any'), ANY);
    assert.equal(toExpectedRevision(1), 0n);
    assert.equal(toExpectedRevision(42), 41n);
  });
});
