import { AsyncLocalStorage } from 'node:async_hooks';

/** Whether the request being answered may have committed events (set by the command handler around appends). */
export interface WriteTrace {
  mayHaveWritten: boolean;
}

const traces = new AsyncLocalStorage<WriteTrace>();

/** Runs a request's handler with a trace of its appends. */
export function withWriteTrace<T>(trace: WriteTrace, fn: () => Promise<T>): Promise<T> {
  return traces.run(trace, fn);
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
