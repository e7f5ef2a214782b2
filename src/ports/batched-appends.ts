import type { Decider } from '../domain/decider';
import type { EventMetadata, LogPosition, NewEvent } from '../domain/events';
import type { ClaimRule } from './claim-rule';

export interface AppendOutcome {
  status: 'created' | 'updated' | 'unchanged';
  position: LogPosition | null;
}

/**
 * The import's command path: a record importer submits one command per record and many are decided
 * and appended together (the Postgres adapter: infra/eventstore/batched-appender.ts). `claims`: keys
 * unique across streams, taken in the append's transaction (see ClaimRule).
 */
export interface BatchedAppends {
  submit<S, C, E extends NewEvent>(decider: Decider<S, C, E>, streamId: string, command: C, metadata: EventMetadata, claims?: ClaimRule<C>): Promise<AppendOutcome>;
}

/** The one-command-at-a-time path (CommandHandler) that batched appends fall back to on a store they cannot batch. */
export interface CommandPath {
  execute<S, C, E extends NewEvent>(
    decider: Decider<S, C, E>,
    streamId: string,
    command: C | ((state: S) => C | Promise<C>),
    opts: { metadata: EventMetadata },
  ): Promise<{ events: E[]; version: number; position: LogPosition | null }>;
}
