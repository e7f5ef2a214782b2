import type { AppendGuard } from './event-store';

/**
 * A command's precondition on the read side (the caller's permission, say). Where the store can, it
 * is checked inside the append's own statement (one round trip instead of two); elsewhere, and
 * whenever the command appends nothing, `check` runs it on its own. Its refusals come before the
 * decider's, as a check made before deciding would give them.
 */
export interface CommandGuard<G, S = unknown> {
  /**
   * The rule as SQL for `EventStore.appendGuarded`. A function gets the state the command's events
   * lead to: the guard's row can then also carry a look-up over ids that state names (what the
   * answer shows), in the same round trip.
   */
  append: AppendGuard | ((after: S) => AppendGuard);
  /** What the command needs from an `ok` row of `append`. */
  fromRow(row: Record<string, unknown>): G;
  /** The same rule on its own: throws the refusal's error (404, 403, 400...), returns what fromRow would otherwise. */
  check(): Promise<G>;
}
