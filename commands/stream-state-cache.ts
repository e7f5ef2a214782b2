import type { LogPosition } from '../src/domain/events';

/** A stream's fold at `version`, and where that version's event lies in the log (when known). */
export interface CachedState<S> {
  state: S;
  version: number;
  position?: LogPosition | null;
}

/**
 * The last decided state of recently written streams, so the next command on a stream this process
 * wrote skips reading and folding it again. Safe without invalidation: a command decided on a cached
 * state appends with that state's version, so a stream that moved meanwhile (another process, an
 * import) fails with a version conflict, and the handler folds onto it only the events appended since.
 */
export class StreamStateCache<S> {
  private readonly entries = new Map<string, CachedState<S>>();

  constructor(private readonly maxEntries = 5000) {}

  get(streamId: string): CachedState<S> | undefined {
    const hit = this.entries.get(streamId);
    if (hit) {
      // Least recently used first out: re-inserting moves the stream to the end of the Map's order.
      this.entries.delete(streamId);
      this.entries.set(streamId, hit);
    }
    return hit;
  }

  /** Keeps the newer of two states: concurrent writers of one stream may finish out of order. */
  set(streamId: string, state: S, version: number, position?: LogPosition | null): void {
    const had = this.entries.get(streamId);
    if (had && had.version >= version) return;
    this.entries.delete(streamId);
    this.entries.set(streamId, position === undefined ? { state, version } : { state, version, position });
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  delete(streamId: string): void {
    this.entries.delete(streamId);
  }
}
