import type { Claim } from '../../src/ports/claim-store';

export interface Refusal {
  claim: Claim;
  holder: string;
}

/**
 * The claims of one append batch, in batch order: each key goes to the store once, for its first
 * claimant; a later job of another owner loses it to that one (the store only sees the first).
 */
export class BatchClaims {
  readonly toTake: Claim[] = [];
  private readonly first = new Map<string, string>();
  private readonly jobs: { job: number; claims: Claim[] }[] = [];

  add(job: number, claims: Claim[]): void {
    this.jobs.push({ job, claims });
    for (const c of claims) {
      if (this.first.has(c.key)) continue;
      this.first.set(c.key, c.owner);
      this.toTake.push(c);
    }
  }

  /** The refused jobs (each for its first refused key), given what the store reported held by others. */
  settle(heldElsewhere: Map<string, string>): Map<number, Refusal> {
    const refused = new Map<number, Refusal>();
    for (const { job, claims } of this.jobs) {
      for (const claim of claims) {
        const holder = heldElsewhere.get(claim.key) ?? this.first.get(claim.key)!;
        if (holder !== claim.owner) {
          refused.set(job, { claim, holder });
          break;
        }
      }
    }
    return refused;
  }
}
