import type { DomainError } from '../domain/errors';
import type { Claim, ClaimStore } from './claim-store';

/**
 * A uniqueness rule across streams, which a decider (one stream) cannot see: the keys a command's events
 * take, and the line error when another stream holds one. The batched appends enforce it (BatchedAppends).
 */
export interface ClaimRule<C> {
  /** Pure: what an append of this command's decision claims. */
  claimsOf(command: C): Claim[];
  readonly store: ClaimStore;
  refusal(claim: Claim, holder: string): DomainError;
}
