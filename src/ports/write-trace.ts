/**
 * Whether the request being answered may have committed events: the HTTP layer creates one for a request that
 * holds an Idempotency-Key and passes it, through the command services, to the command handler, which sets it
 * around its appends.
 */
export interface WriteTrace {
  mayHaveWritten: boolean;
  /** How the request's appends are marked (see KeyMark). */
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

/**
 * Called just before an append: from here on the request may have written (a lost connection leaves a commit
 * unknown). Returns the undo for an append known to have written nothing (a version conflict, a refused guard).
 */
export function appendStarting(trace: WriteTrace | undefined): () => void {
  if (!trace) return () => undefined;
  const before = trace.mayHaveWritten;
  trace.mayHaveWritten = true;
  return () => {
    trace.mayHaveWritten = before;
  };
}
