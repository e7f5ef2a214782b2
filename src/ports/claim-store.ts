import type { Knex } from 'knex';

/** A unique key one stream holds for good (a file id a catalog filing lists), and that stream's owner id. */
export interface Claim {
  key: string;
  owner: string;
}

/**
 * Where claims are kept: write-side state next to the event log, taken in the same transaction as the
 * appends that need them (a read model would lag behind the log, and two imports could both miss the other).
 */
export interface ClaimStore {
  /**
   * Takes every free key (in key order, so two takers of overlapping keys cannot deadlock) and returns,
   * for each key held by ANOTHER owner, that holder. A key its own claimant already holds is no conflict.
   * A key a running transaction is taking waits for it: committed, it is the holder; rolled back, taken here.
   */
  take(trx: Knex.Transaction, claims: Claim[]): Promise<Map<string, string>>;
}
