import type { EventStore } from '../src/ports/event-store';
import type { CommandGuard } from '../src/ports/command-guard';
import type { Decider } from '../src/domain/decider';
import { fold, type EventLike } from '../src/domain/decider';
import { ExpectedVersionConflict } from '../src/domain/errors';
import type { EventMetadata, LogPosition, NewEvent } from '../src/domain/events';
import type { Logger } from '../src/util/logger';
import type { ProjectionWaits } from '../src/ports/projection-waits';
import type { StreamStateCache } from './stream-state-cache';
import { IDEMPOTENCY_METADATA_KEY, appendStarting, type WriteTrace } from '../src/ports/write-trace';

export interface CommandOptions {
  metadata: EventMetadata;
  /** Projections that serve the GETs matching this write: the answer waits (bounded) until they reach it. */
  waitFor?: string[];
  /** Re-decide on a version conflict this many times ("last write wins" operations). */
  retries?: number;
  /** The stream cannot exist yet (its id was just generated): decide on the initial state without reading it. */
  newStream?: boolean;
  /** The request's write trace (it holds an Idempotency-Key): its appends are marked and reported there. */
  trace?: WriteTrace;
}

export interface CachedCommandOptions<S, G = undefined> extends CommandOptions {
  /** Decide on the state this process last wrote to the stream instead of reading it (see StreamStateCache). */
  cache?: StreamStateCache<S>;
  guard?: CommandGuard<G, S>;
}

/** A stream's state at `version` that a command decides on without loading the stream (see `execute`). */
interface Known<S> {
  state: S;
  version: number;
  position?: LogPosition | null;
  guess: boolean;
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
    private readonly engine: ProjectionWaits | null,
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
    // A request holding an Idempotency-Key marks its events with the key, in the append itself.
    const keyMark = opts.trace?.key;
    const metadata = keyMark ? { ...opts.metadata, [IDEMPOTENCY_METADATA_KEY]: keyMark.identity } : opts.metadata;
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
    // `guess`: decided without reading the stream (a new stream, or this process's cached state), so only an
    // append can tell whether it is current; otherwise the state is the stream's fold as read from the store.
    const cached = opts.newStream ? undefined : cache?.get(streamId);
    let assumed: Known<S> | undefined = opts.newStream ? { state: decider.initialState(), version: 0, guess: true } : cached && { ...cached, guess: true };
    for (let attempt = 0; ; ) {
      const { state, version, position: readAt } = assumed ?? (await this.load(decider, streamId));
      let events: E[];
      try {
        const cmd = typeof command === 'function' ? await (command as (s: S) => C | Promise<C>)(state) : command;
        events = decider.decide(state, cmd);
      } catch (e) {
        // Only an append checks a cached state against the stream: a refusal must come from the stored one.
        if (assumed?.guess && !opts.newStream) {
          assumed = await this.refresh(decider, streamId, assumed);
          continue;
        }
        await checkGuard();
        throw e;
      }
      if (events.length === 0) {
        if (assumed?.guess && !opts.newStream) {
          assumed = await this.refresh(decider, streamId, assumed);
          continue;
        }
        await checkGuard();
        // A no-op answers the stored state, which may hold another writer's events the read side has not
        // reached yet: the GETs that follow must show what this answer shows (read-your-writes).
        if (readAt) await this.awaitProjections(readAt, opts.waitFor);
        return { state, events, version, position: null, guard: guarded };
      }
      if (keyMark) await keyMark.noteStream(streamId);
      const wroteNothing = appendStarting(opts.trace);
      try {
        let r;
        const after = fold(decider, events as EventLike<E>[], state);
        if (guard && guardInAppend) {
          const g = await this.store.appendGuarded!(streamId, events, version, metadata, typeof guard.append === 'function' ? guard.append(after) : guard.append);
          if (!g.result) {
            wroteNothing();
            // Refused: the check on its own throws the refusal's error. Should it pass (the look-up changed
            // in between), the command goes on as one checked before appending.
            await checkGuard();
            continue;
          }
          guarded = guard.fromRow(g.guard!);
          r = g.result;
        } else r = await this.store.append(streamId, events, version, metadata);
        // Cached as a reader would fold it: the store keeps event data as JSON (undefined fields vanish).
        cache?.set(streamId, fold(decider, events.map((e) => ({ ...e, data: JSON.parse(JSON.stringify(e.data ?? {})) })) as EventLike<E>[], state), r.nextVersion, r.position);
        await this.awaitProjections(r.position, opts.waitFor);
        return { state: after, events, version: r.nextVersion, position: r.position, guard: guarded };
      } catch (e) {
        if (!(e instanceof ExpectedVersionConflict)) throw e;
        wroteNothing();
        // A state assumed without reading (cached or new) was a guess: reading the stream is not a retry.
        const wasGuess = !!assumed?.guess;
        // Another writer moved the stream past `version`. Read only what was appended since and fold it onto
        // the state decided on (the stream's fold at `version`), or onto a newer one this process's other
        // writers cached, rather than the whole stream again: under contention a long stream would otherwise
        // cost its full length per conflict, and each slower retry widens the window for the next conflict.
        const newer = cache?.get(streamId);
        const from = newer && newer.version > version ? newer : { state, version };
        // Nothing after a newer cached state: that state is the stream's (its writer has just appended it).
        assumed = (await this.catchUp(decider, streamId, from)) ?? (from === newer ? { ...newer, position: newer.position ?? null, guess: false } : undefined);
        if (assumed) cache?.set(streamId, assumed.state, assumed.version, assumed.position);
        else cache?.delete(streamId);
        if (wasGuess) continue;
        if (attempt++ < (opts.retries ?? 0)) continue;
        throw e;
      }
    }
  }

  /**
   * A guessed state made current: the events appended after it folded onto it, or the guess itself when
   * there are none (a cached state is the stream's fold at its version, with that event's position). Not
   * the whole stream again: repeated no-ops and refusals decided on a cached state stay cheap.
   */
  private async refresh<S, C, E extends NewEvent>(decider: Decider<S, C, E>, streamId: string, guess: Known<S>): Promise<Known<S>> {
    return (await this.catchUp(decider, streamId, guess)) ?? { ...guess, position: guess.position ?? null, guess: false };
  }

  /**
   * `from` (the stream's fold at `from.version`) with the events appended after it, as read from the
   * store; undefined when there are none (after a conflict: the store does not agree that the stream
   * moved, so read it whole).
   */
  private async catchUp<S, C, E extends NewEvent>(decider: Decider<S, C, E>, streamId: string, from: { state: S; version: number }): Promise<Known<S> | undefined> {
    const tail = await this.store.readStream(streamId, from.version + 1);
    const last = tail[tail.length - 1];
    if (!last) return undefined;
    return { state: fold(decider, tail as never, from.state), version: last.version, position: last.position, guess: false };
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
