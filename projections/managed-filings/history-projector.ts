import type { Knex } from 'knex';
import type { ScriptedProjector } from '../engine';
import type { ProjectionContext, TableNamer, EventCoverage, ProjectedEvent } from '../projector';
import type { ManagedFilingEvent } from '../../src/domain/events/managed-filings';
import { upsertStatement, type SqlStatement } from '../batch-sql';
import { runStatements } from '../batch-script';
import { MANAGED_FILING_HISTORY_PROJECTION, WORKING_FILINGS_RUN_GROUP } from '../../src/read-models/projection-names';

const HANDLES = {
  ManagedFilingCreated: 'applied',
  ManagedFilingUpdated: 'applied',
  ManagedFilingShared: 'applied',
  ManagedFilingItemAdded: 'applied',
  ManagedFilingItemChanged: 'applied',
  FilingCommentPosted: 'applied',
  FilingCommentEdited: 'applied',
  FilingCommentDeleted: 'applied',
  FilingThreadResolved: 'applied',
  FilingThreadReopened: 'applied',
} as const satisfies EventCoverage<ManagedFilingEvent>;

type Projected = ProjectedEvent<ManagedFilingEvent, typeof HANDLES>;

/**
 * Every event of every managed filing stream, as GET /managed-filings/{id}/events shows it: queries
 * never read the event store, so the auditor's history is a read model like any other.
 */
export class ManagedFilingHistoryProjector implements ScriptedProjector<ManagedFilingEvent, typeof HANDLES> {
  readonly name = MANAGED_FILING_HISTORY_PROJECTION;
  readonly runGroup = WORKING_FILINGS_RUN_GROUP;
  readonly version = 1;
  readonly tables = ['managed_filing_events'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('managed_filing_events')} (
        filing_id uuid not null, version integer not null, type text not null, position bigint not null,
        data jsonb not null, metadata jsonb not null, recorded_at timestamptz not null, primary key (filing_id, version));
    `);
  }

  async apply({ trx, table }: ProjectionContext, events: Projected[]): Promise<void> {
    await runStatements(trx, this.batchStatements(events, table));
  }

  batchStatements(events: Projected[], t: TableNamer): SqlStatement[] {
    const rows = events
      .filter((e) => e.streamId.startsWith('managedFiling-'))
      .map((e) => ({
        filing_id: e.streamId.slice('managedFiling-'.length),
        version: e.version,
        type: e.type,
        position: e.position.prepare.toString(),
        data: e.data ?? {},
        metadata: e.metadata ?? {},
        recorded_at: e.recordedAt,
      }));
    const insert = upsertStatement(t('managed_filing_events'), rows, { conflict: ['filing_id', 'version'], update: 'ignore' });
    return insert ? [insert] : [];
  }
}
