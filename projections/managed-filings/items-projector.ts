import type { Knex } from 'knex';
import type { ItemChanges, ManagedFilingEvent } from '../../commands/managed-filings/managed-filing';
import type { RecordedEvent } from '../../src/domain/events';
import type { ProjectionContext, Projector, TableNamer } from '../projector';
import { MANAGED_FILING_ITEMS_PROJECTION } from './names';

function itemColumns(c: ItemChanges): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  if (c.artifactId !== undefined) row.artifact_id = c.artifactId;
  if (c.artifactVersionId !== undefined) row.artifact_version_id = c.artifactVersionId;
  if (c.scheduleType !== undefined) row.schedule_type = c.scheduleType;
  if (c.scheduleSeqNo !== undefined) row.schedule_seq_no = c.scheduleSeqNo;
  if (c.context !== undefined) row.context = c.context;
  if (c.attachments !== undefined) row.attachments = JSON.stringify(c.attachments);
  return row;
}

/** Items of managed filings, as the items list shows them. */
export class ManagedFilingItemsProjector implements Projector {
  readonly name = MANAGED_FILING_ITEMS_PROJECTION;
  readonly version = 1;
  readonly tables = ['managed_filing_items'];
  readonly eventTypes = ['ManagedFilingItemAdded', 'ManagedFilingItemChanged'];

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('managed_filing_items')} (
        id uuid primary key, filing_id uuid not null, artifact_id uuid not null, artifact_version_id text not null,
        schedule_type text, schedule_seq_no integer, context text, attachments jsonb not null,
        created_at timestamptz not null, updated_at timestamptz not null, version integer not null);
      create index on ${t('managed_filing_items')} (filing_id, created_at desc, id);
    `);
  }

  async apply({ trx, table: t }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    for (const raw of events) {
      const e = raw as unknown as ManagedFilingEvent;
      if (e.type === 'ManagedFilingItemAdded') {
        const i = e.data.item;
        await trx(t('managed_filing_items'))
          .insert({
            id: i.id,
            filing_id: i.filingId,
            ...itemColumns(i),
            created_at: i.createdAt,
            updated_at: i.updatedAt,
            version: raw.version,
          })
          .onConflict('id')
          .ignore();
      } else if (e.type === 'ManagedFilingItemChanged') {
        // The stream version orders the changes: a replayed older change never overwrites a newer one.
        await trx(t('managed_filing_items'))
          .where({ id: e.data.itemId })
          .andWhere('version', '<', raw.version)
          .update({ ...itemColumns(e.data.changes), updated_at: e.data.updatedAt, version: raw.version });
      }
    }
  }
}
