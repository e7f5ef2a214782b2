import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * The bounds the database statements of one request run under: each statement is cancelled after
 * `timeoutMs` (0: never) and every running one as soon as `signal` aborts (the client went away).
 * The HTTP layer opens one per request; the Postgres connections read it (infra/postgres/statement-guard.ts).
 * Work that outlives the request (a background run the request woke) finds the scope closed and runs unbounded.
 */
export interface StatementScope {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** False once the answer is sent: statements started later are not the request's. */
  open: boolean;
}

const scopes = new AsyncLocalStorage<StatementScope>();

export function runInStatementScope<T>(scope: StatementScope, fn: () => T): T {
  return scopes.run(scope, fn);
}

/** The scope of the request this code runs for, if it is still open. */
export function currentStatementScope(): StatementScope | undefined {
  const s = scopes.getStore();
  return s?.open ? s : undefined;
}

/** Runs fn outside any request's scope: for shared work a request only happens to start (a projector catch-up). */
export function outsideStatementScope<T>(fn: () => T): T {
  return scopes.exit(fn);
}
