import type { Knex } from 'knex';
import type { RecordedEvent } from '../src/domain/events';

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
