import { AsyncLocalStorage } from 'node:async_hooks';

/** Whether the request being answered may have committed events (set by the command handler around appends). */
export interface WriteTrace {
  mayHaveWritten: boolean;
  /** Set while the request holds an Idempotency-Key: how its appends are marked (see keyMarkForAppend). */
  key?: KeyMark;
}

/** The metadata entry that marks the events of a keyed request with the key's identity. */
export const IDEMPOTENCY_METADATA_KEY = 'idempotencyKey';

/**
 * What the command handler does for a keyed request before it appends: note the stream (once per stream; a
 * later holder of the key looks there) and mark the events with `identity` in the same append, so whether the
 * write committed can be read from the log itself when the host dies before its answer was stored.
 */
export interface KeyMark {
  identity: string;
  noteStream(streamId: string): Promise<void>;
}

const traces = new AsyncLocalStorage<WriteTrace>();

/** Runs a request's handler with a trace of its appends. */
export function withWriteTrace<T>(trace: WriteTrace, fn: () => Promise<T>): Promise<T> {
  return traces.run(trace, fn);
}

/** The key mark of the request being answered; undefined without an Idempotency-Key (the common case: no cost). */
export function keyMarkForAppend(): KeyMark | undefined {
  return traces.getStore()?.key;
}

/**
 * Called just before an append: from here on the request may have written (a lost connection leaves a commit
 * unknown). Returns the undo for an append known to have written nothing (a version conflict, a refused guard).
 */
export function appendStarting(): () => void {
  const trace = traces.getStore();
  if (!trace) return () => undefined;
  const before = trace.mayHaveWritten;
  trace.mayHaveWritten = true;
  return () => {
    trace.mayHaveWritten = before;
  };
}
