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
  /** Applies a batch in order, inside the transaction that also moves the checkpoint. */
  apply(ctx: ProjectionContext, events: RecordedEvent[]): Promise<void>;
}

export const PROJECTORS = Symbol.for('Projectors');
