import type { Knex } from 'knex';
import type { NewEvent, Recorded } from '../src/domain/events';
import type { SqlStatement } from './batch-sql';

/** Resolves a read model's logical table name to the physical one (a rebuild writes to shadow tables). */
export type TableNamer = (logical: string) => string;

export interface ProjectionContext {
  trx: Knex.Transaction;
  table: TableNamer;
}

/**
 * What a projector does with each event type of its category's union: `'applied'` (the engine reads it and
 * hands it to `apply`) or `'ignored'`. Every type of the union must be named, so adding a type to a union
 * is a compile error until each projector of that category says whether it applies or ignores it. Declare
 * it `as const satisfies EventCoverage<CategoryEvent>` (so extra names are errors too).
 */
export type EventCoverage<E extends NewEvent> = { readonly [K in E['type']]: 'applied' | 'ignored' };

/** The members of the union that a coverage applies. */
export type AppliedEvent<E extends NewEvent, C extends EventCoverage<E>> = Extract<E, { type: { [K in keyof C]: C[K] extends 'ignored' ? never : K }[keyof C] }>;

/** What a projector's `apply` receives: recorded events of the members it applies (upcast to their current schema). */
export type ProjectedEvent<E extends NewEvent, C extends EventCoverage<E>> = Recorded<AppliedEvent<E, C>>;

/**
 * A projector owns its tables. Its schema is part of its code and `version`: bumping the version
 * makes the engine rebuild it from the log (into new tables, then swap), so read models never need
 * hand-written data migrations.
 */
export interface Projector<E extends NewEvent = NewEvent, C extends EventCoverage<E> = EventCoverage<E>> {
  readonly name: string;
  readonly version: number;
  readonly tables: readonly string[];
  /** Every event type of its category, applied or ignored; the engine fetches only the applied ones (eventTypesOf). */
  readonly handles: C;
  createSchema(trx: Knex.Transaction, table: TableNamer): Promise<void>;
  /**
   * Optional: secondary indexes that a rebuild creates only after the bulk load into its shadow
   * tables (building an index once is much cheaper than maintaining it row by row). Fresh read models
   * get them right after createSchema. Indexes that the apply itself relies on (conflict targets,
   * look-ups by key) belong in createSchema.
   */
  createIndexes?(trx: Knex.Transaction, table: TableNamer): Promise<void>;
  /**
   * Optional: brings live tables that an earlier release created up to what createSchema creates now, in place,
   * for changes Postgres makes without rewriting data (a column losing NOT NULL), where a version bump would
   * project the whole log again. Runs at every start on existing read models (before any rebuild), so it must be
   * idempotent and cheap once done. Anything that needs the data projected again is a version bump instead.
   */
  upgradeSchema?(trx: Knex.Transaction, table: TableNamer): Promise<void>;
  /** Applies a batch in order, inside the transaction that also moves the checkpoint. */
  apply(ctx: ProjectionContext, events: ProjectedEvent<E, C>[]): Promise<void>;
  /**
   * Optional, for read models kept outside Postgres (a search engine): called by a rebuild inside the
   * swap transaction, after the shadow tables were renamed and before the checkpoint moves, to make
   * the data built under `shadow` live. Not atomic with the commit: the live checkpoint can only be
   * behind the rebuilt data, so a failed commit replays idempotent writes.
   */
  promote?(shadow: TableNamer): Promise<void>;
  /**
   * Optional, for read models kept outside Postgres: removes what a rebuild that never reached its swap
   * built under `shadow` (the engine drops the shadow tables itself). Called at start when no rebuild
   * runs; must do nothing when there is nothing to remove.
   */
  discardShadow?(shadow: TableNamer): Promise<void>;
}

/**
 * A projector may name a run group: the projectors of one group share one runner, which reads the
 * log once for all of them and applies a batch to all of them in one transaction, moving all their
 * checkpoints in one statement. For read models that one write waits for together (a working filing
 * and its event history): the write then waits for one batch commit instead of one per projector, and
 * the database runs one transaction where it ran several. Also for read models fed by the same events
 * (an import's catalog, files and directories): the log is read and decoded once for all of them.
 * Each member keeps its own checkpoint and version, so rebuilds and status stay per projector
 * (catch-up runs the named members together).
 */
export interface GroupedProjector<E extends NewEvent = NewEvent, C extends EventCoverage<E> = EventCoverage<E>> extends Projector<E, C> {
  readonly runGroup?: string;
}

/**
 * A projector whose batch writes are statements computed from the events alone (no statement needs
 * what an earlier one read). When every member of a run group is one, the group's batch (locks,
 * checkpoint moves and every member's statements) travels as ONE multi-statement query: one round trip
 * where a batch took BEGIN, the move, a round trip per statement and COMMIT, each on every write's
 * read-your-writes path. `apply` must do the same as running these statements in order
 * (`runStatements`).
 */
export interface ScriptedProjector<E extends NewEvent = NewEvent, C extends EventCoverage<E> = EventCoverage<E>> extends GroupedProjector<E, C> {
  batchStatements(events: ProjectedEvent<E, C>[], table: TableNamer): SqlStatement[];
}

/**
 * Closes an exhaustive switch over a projector's applied events: a type left unhandled is a compile error.
 * At run time an event the projector does not apply is passed over (the engine never delivers one, but a
 * test or tool may hand a projector a whole stream).
 */
export function notApplied(e: never): void {
  void e;
}

/** The types a coverage applies, in its order. */
export function appliedTypes<E extends NewEvent, C extends EventCoverage<E>>(handles: C): AppliedEvent<E, C>['type'][] {
  return (Object.keys(handles) as (keyof C & string)[]).filter((t) => handles[t] !== 'ignored') as AppliedEvent<E, C>['type'][];
}

const typesByProjector = new WeakMap<Projector, readonly string[]>();

/** The event types the engine reads for a projector: derived from its coverage, once. */
export function eventTypesOf(p: Projector): readonly string[] {
  let types = typesByProjector.get(p);
  if (!types) typesByProjector.set(p, (types = appliedTypes(p.handles)));
  return types;
}

