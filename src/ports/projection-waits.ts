import type { LogPosition } from '../domain/events';

/**
 * Read-your-writes: what a command needs of the projection engine, so that the GETs matching a write
 * show it. The engine (projections/engine.ts) implements it; a process without one passes null.
 */
export interface ProjectionWaits {
  /** Resolves once every named projection has reached `position`; rejects after `timeoutMs`. */
  waitFor(names: string[], position: LogPosition, timeoutMs: number): Promise<void>;
}
