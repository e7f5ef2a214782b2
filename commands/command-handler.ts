import type { AppendGuard, EventStore } from '../infra/eventstore/event-store';
import type { Decider } from '../src/domain/decider';
import { fold, type EventLike } from '../src/domain/decider';
import { ExpectedVersionConflict } from '../src/domain/errors';
import type { EventMetadata, LogPosition, NewEvent } from '../src/domain/events';
import type { Logger } from '../src/logger';
import type { ProjectionEngine } from '../projections/engine';
import type { StreamStateCache } from './stream-state-cache';

export interface CommandOptions {
  metadata: EventMetadata;
  /** Projections that serve the GETs matching this write: the answer waits (bounded) until they reach it. */
  waitFor?: string[];
  /** Re-decide on a version conflict this many times ("last write wins" operations). */
  retries?: number;
  /** The stream cannot exist yet (its id was just generated): decide on the initial state without reading it. */
  newStream?: boolean;
}

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

export interface CachedCommandOptions<S, G = undefined> extends CommandOptions {
  /** Decide on the state this process last wrote to the stream instead of reading it (see StreamStateCache). */
  cache?: StreamStateCache<S>;
  guard?: CommandGuard<G, S>;
}

export interface CommandResult<S, E, G = undefined> {
  state: S;
  events: E[];
  version: number;
  position: LogPosition | null;
  /** What the guard returned (undefined without a guard). */
  guard?: G;
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

  /** `position`: where the stream's last event lies in the log (null for an empty stream). */
  async load<S, C, E extends NewEvent>(decider: Decider<S, C, E>, streamId: string): Promise<{ state: S; version: number; position: LogPosition | null }> {
    const events = await this.store.readStream(streamId);
    const last = events.length ? events[events.length - 1] : undefined;
    return { state: fold(decider, events as never), version: last?.version ?? 0, position: last?.position ?? null };
  }

  async execute<S, C, E extends NewEvent, G = undefined>(
    decider: Decider<S, C, E>,
    streamId: string,
    command: C | ((state: S) => C | Promise<C>),
    opts: CachedCommandOptions<S, G>,
  ): Promise<CommandResult<S, E, G>> {
    const cache = opts.cache;
    const guard = opts.guard;
    // Whether the guard still has to be checked, inside the append where the store can.
    let guardInAppend = !!guard && !!this.store.appendGuarded;
    let guarded: G | undefined = guard && !guardInAppend ? await guard.check() : undefined;
    /** The guard's refusal before anything the decider says: the order of a check made before deciding. */
    const checkGuard = async () => {
      if (guard && guardInAppend) {
        guarded = await guard.check();
        guardInAppend = false;
      }
    };
    let assumed: { state: S; version: number; position?: LogPosition | null } | undefined = opts.newStream ? { state: decider.initialState(), version: 0 } : cache?.get(streamId);
    for (let attempt = 0; ; ) {
      const { state, version, position: readAt } = assumed ?? (await this.load(decider, streamId));
      let events: E[];
      try {
        const cmd = typeof command === 'function' ? await (command as (s: S) => C | Promise<C>)(state) : command;
        events = decider.decide(state, cmd);
      } catch (e) {
        // Only an append checks a cached state against the stream: a refusal must come from the stored one.
        if (assumed && !opts.newStream) {
          assumed = undefined;
          continue;
        }
        await checkGuard();
        throw e;
      }
      if (events.length === 0) {
        if (assumed && !opts.newStream) {
          assumed = undefined;
          continue;
        }
        await checkGuard();
        // A no-op answers the stored state, which may hold another writer's events the read side has not
        // reached yet: the GETs that follow must show what this answer shows (read-your-writes).
        if (readAt) await this.awaitProjections(readAt, opts.waitFor);
        return { state, events, version, position: null, guard: guarded };
      }
      try {
        let r;
        const after = fold(decider, events as EventLike<E>[], state);
        if (guard && guardInAppend) {
          const g = await this.store.appendGuarded!(streamId, events, version, opts.metadata, typeof guard.append === 'function' ? guard.append(after) : guard.append);
          if (!g.result) {
            // Refused: the check on its own throws the refusal's error. Should it pass (the look-up changed
            // in between), the command goes on as one checked before appending.
            await checkGuard();
            continue;
          }
          guarded = guard.fromRow(g.guard!);
          r = g.result;
        } else r = await this.store.append(streamId, events, version, opts.metadata);
        // Cached as a reader would fold it: the store keeps event data as JSON (undefined fields vanish).
        cache?.set(streamId, fold(decider, events.map((e) => ({ ...e, data: JSON.parse(JSON.stringify(e.data ?? {})) })) as EventLike<E>[], state), r.nextVersion);
        await this.awaitProjections(r.position, opts.waitFor);
        return { state: after, events, version: r.nextVersion, position: r.position, guard: guarded };
      } catch (e) {
        if (!(e instanceof ExpectedVersionConflict)) throw e;
        cache?.delete(streamId);
        // A state assumed without reading (cached or new) was a guess: reading the stream is not a retry.
        if (assumed) {
          assumed = undefined;
          continue;
        }
        if (attempt++ < (opts.retries ?? 0)) continue;
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
