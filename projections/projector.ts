import type { Knex } from 'knex';
import type { RecordedEvent } from '../src/domain/events';
import type { SqlStatement } from './batch-sql';

/** Resolves a read model's logical table name to the physical one (a rebuild writes to shadow tables). */
export type TableNamer = (logical: string) => string;

export interface ProjectionContext {
  trx: Knex.Transaction;
  table: TableNamer;
}

/**
 * A projector owns its tables. Its schema is part of its code and `version`: bumping the version
 * makes the engine rebuild it from the log (into new tables, then swap), so read models never need
 * hand-written data migrations.
 */
export interface Projector {
  readonly name: string;
  readonly version: number;
  readonly tables: readonly string[];
  /** The event types it reads; the engine fetches only these. */
  readonly eventTypes: readonly string[];
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
  apply(ctx: ProjectionContext, events: RecordedEvent[]): Promise<void>;
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
export interface GroupedProjector extends Projector {
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
export interface ScriptedProjector extends GroupedProjector {
  batchStatements(events: RecordedEvent[], table: TableNamer): SqlStatement[];
}

/** The event types the engine reads for a projector. */
export function eventTypesOf(p: Projector): readonly string[] {
  return p.eventTypes;
}

