import type { Role } from './server';

/**
 * Long-running consumers a feature starts with the server (the indexing worker, relays). Bound as a
 * list under BACKGROUND_WORKER; `startServer` starts those whose roles include the server's role.
 * They stop with the Bus (Runtime.close closes it).
 */
export interface BackgroundWorker {
  readonly name: string;
  readonly roles: readonly Role[];
  start(): Promise<void>;
}

export const BACKGROUND_WORKER = Symbol.for('BackgroundWorker');
