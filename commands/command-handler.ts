import type { EventStore } from '../infra/eventstore/event-store';
import type { Decider } from '../src/domain/decider';
import { fold, type EventLike } from '../src/domain/decider';
import { ExpectedVersionConflict } from '../src/domain/errors';
import type { EventMetadata, LogPosition, NewEvent } from '../src/domain/events';
import type { Logger } from '../src/logger';
import type { ProjectionEngine } from '../projections/engine';

export interface CommandOptions {
  metadata: EventMetadata;
  /** Projections that serve the GETs matching this write: the answer waits (bounded) until they reach it. */
  waitFor?: string[];
  /** Re-decide on a version conflict this many times ("last write wins" operations). */
  retries?: number;
}

export interface CommandResult<S, E> {
  state: S;
  events: E[];
  version: number;
  position: LogPosition | null;
}

/**
 * The one command path: read the stream, fold, decide, append with the expected version, then wait
 * for the read side. `command` may be a function of the current state, for commands that carry
 * look-ups made from that state.
 */
export class CommandHandler {
  constructor(
    private readonly store: EventStore,
    private readonly engine: ProjectionEngine | null,
    private readonly log: Logger,
    private readonly rywTimeoutMs = 5000,
  ) {}

  async load<S, C, E extends NewEvent>(decider: Decider<S, C, E>, streamId: string): Promise<{ state: S; version: number }> {
    const events = await this.store.readStream(streamId);
    return { state: fold(decider, events as never), version: events.length ? events[events.length - 1].version : 0 };
  }

  async execute<S, C, E extends NewEvent>(
    decider: Decider<S, C, E>,
    streamId: string,
    command: C | ((state: S) => C | Promise<C>),
    opts: CommandOptions,
  ): Promise<CommandResult<S, E>> {
    for (let attempt = 0; ; attempt++) {
      const { state, version } = await this.load(decider, streamId);
      const cmd = typeof command === 'function' ? await (command as (s: S) => C | Promise<C>)(state) : command;
      const events = decider.decide(state, cmd);
      if (events.length === 0) return { state, events, version, position: null };
      try {
        const r = await this.store.append(streamId, events, version, opts.metadata);
        const after = fold(decider, events as EventLike<E>[], state);
        await this.awaitProjections(r.position, opts.waitFor);
        return { state: after, events, version: r.nextVersion, position: r.position };
      } catch (e) {
        if (e instanceof ExpectedVersionConflict && attempt < (opts.retries ?? 0)) continue;
        throw e;
      }
    }
  }

  async awaitProjections(position: LogPosition, names?: string[]): Promise<void> {
    if (!this.engine || !names || names.length === 0) return;
    try {
      await this.engine.waitFor(names, position, this.rywTimeoutMs);
    } catch (e) {
      // The write is committed; a slow read side must not turn it into a reported failure.
      this.log.warn({ err: e, projections: names }, 'read-your-writes wait timed out');
    }
  }
}
