import type { AppendResult, EventMetadata, ExpectedVersion, LogPosition, NewEvent, RecordedEvent } from '../domain/events';

export interface ReadAllOptions {
  after: LogPosition;
  limit: number;
  /** Only these event types; the returned `horizon` still moves past the skipped ones. */
  types?: string[];
}

export interface ReadAllResult {
  events: RecordedEvent[];
  /** Everything at or before this position has been considered; a checkpoint may move here. */
  horizon: LogPosition;
}

/**
 * A precondition of an append that the database checks in the append's own statement (see
 * `EventStore.appendGuarded`): SQL selecting at most one row with a boolean column `ok`, whose
 * parameters `$1`.. are `values`. The SQL text must be a constant: it names a prepared statement.
 */
export interface AppendGuard {
  sql: string;
  values: unknown[];
}

export interface GuardedAppendResult {
  /** The guard's row; null when it selected none. */
  guard: (Record<string, unknown> & { ok: boolean | null }) | null;
  /** Null when the guard refused: nothing was appended. */
  result: AppendResult | null;
}

/** The port every event store adapter implements and the shared contract suite checks. */
export interface EventStore {
  append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata): Promise<AppendResult>;
  /**
   * Optional (SQL stores): `append` only if `guard` allows it, checked atomically in one round trip.
   * Without it, callers check first and append after.
   */
  appendGuarded?(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata, guard: AppendGuard): Promise<GuardedAppendResult>;
  readStream(streamId: string, fromVersion?: number): Promise<RecordedEvent[]>;
  readAll(opts: ReadAllOptions): Promise<ReadAllResult>;
  /** The newest position a subscriber can currently see. */
  head(): Promise<LogPosition>;
  /**
   * The position of the newest committed event, which a subscriber may not see yet (Postgres holds
   * events back while an older transaction is open). Wait for this, not head(), after writing:
   * head() can still be behind one's own committed appends.
   */
  lastCommitted(): Promise<LogPosition>;
  /**
   * Optional: how many events lie in (after, upTo], counting at most `cap` (lag for readiness and
   * metrics). Without it the projection engine reports a lag of 1 for "behind" and 0 for "caught up".
   */
  countBetween?(after: LogPosition, upTo: LogPosition, cap: number): Promise<number>;
  /** Calls back (without data) whenever new events may be readable; returns an unsubscribe. */
  onAppended(listener: () => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}
