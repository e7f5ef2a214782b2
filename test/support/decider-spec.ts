import assert from 'node:assert/strict';
import { fold, type Decider } from '../../src/domain/decider';
import { DomainError } from '../../src/domain/errors';
import type { NewEvent } from '../../src/domain/events';

/** given events / when command / then events (or the error code): decider tests without I/O. */
export function spec<S, C, E extends NewEvent>(d: Decider<S, C, E>) {
  return (given: E[], when: C) => {
    const state = fold(d, given as never);
    return {
      then: (expected: E[]) => assert.deepEqual(d.decide(state, when), expected),
      thenError: (code: string) => assert.throws(() => d.decide(state, when), (e: unknown) => e instanceof DomainError && e.code === code),
    };
  };
}
