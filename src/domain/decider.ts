import type { NewEvent, RecordedEvent } from './events';

/** Anything evolve can fold: a freshly decided event or a recorded one. */
export type EventLike<E extends NewEvent> = E extends NewEvent ? E & Partial<Pick<RecordedEvent, 'recordedAt' | 'metadata' | 'version'>> : never;

/**
 * A pure aggregate: decide turns a command into events (or throws a DomainError), evolve folds
 * events into state. No I/O; the clock and ids arrive in the command.
 */
export interface Decider<S, C, E extends NewEvent> {
  initialState(): S;
  evolve(state: S, event: EventLike<E>): S;
  decide(state: S, command: C): E[];
}

export function fold<S, E extends NewEvent>(d: Pick<Decider<S, unknown, E>, 'initialState' | 'evolve'>, events: EventLike<E>[], from?: S): S {
  return events.reduce((s, e) => d.evolve(s, e), from ?? d.initialState());
}

export function assertNever(x: never): never {
  throw new Error(`unhandled case: ${JSON.stringify(x)}`);
}
