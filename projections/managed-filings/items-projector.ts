import type { Knex } from 'knex';
import type { ItemChanges, ManagedFilingEvent } from '../../src/domain/events/managed-filings';
import type { ScriptedProjector } from '../engine';
import { type ProjectionContext, type TableNamer, notApplied, type EventCoverage, type ProjectedEvent } from '../projector';
import { upsertStatement, type SqlStatement } from '../batch-sql';
import { runStatements } from '../batch-script';
import { MANAGED_FILING_ITEMS_PROJECTION, WORKING_FILINGS_RUN_GROUP } from '../../src/read-models/projection-names';

const HANDLES = {
  ManagedFilingCreated: 'ignored',
  ManagedFilingUpdated: 'ignored',
  ManagedFilingShared: 'ignored',
  ManagedFilingItemAdded: 'applied',
  ManagedFilingItemChanged: 'applied',
  FilingCommentPosted: 'ignored',
  FilingCommentEdited: 'ignored',
  FilingCommentDeleted: 'ignored',
  FilingThreadResolved: 'ignored',
  FilingThreadReopened: 'ignored',
} as const satisfies EventCoverage<ManagedFilingEvent>;

type Projected = ProjectedEvent<ManagedFilingEvent, typeof HANDLES>;

/** Items of managed filings, as the items list shows them. */
export class ManagedFilingItemsProjector implements ScriptedProjector<ManagedFilingEvent, typeof HANDLES> {
  readonly name = MANAGED_FILING_ITEMS_PROJECTION;
  readonly runGroup = WORKING_FILINGS_RUN_GROUP;
  readonly version = 1;
  readonly tables = ['managed_filing_items'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('managed_filing_items')} (
        id uuid primary key, filing_id uuid not null, artifact_id uuid not null, artifact_version_id text not null,
        schedule_type text, schedule_seq_no integer, context text, attachments jsonb not null,
        created_at timestamptz not null, updated_at timestamptz not null, version integer not null);
      create index on ${t('managed_filing_items')} (filing_id, created_at desc, id);
    `);
  }

  /**
   * A batch in two statements: the added items in one insert, then every item's changes folded into
   * one update row each. Folding is safe because the batch holds every change of the projector's
   * streams in order, and each row keeps the last version it reflects.
   */
  async apply({ trx, table }: ProjectionContext, events: Projected[]): Promise<void> {
    await runStatements(trx, this.batchStatements(events, table));
  }

  batchStatements(events: Projected[], t: TableNamer): SqlStatement[] {
    const added: Record<string, unknown>[] = [];
    const changed = new Map<string, { id: string; version: number; updated_at: string; c: ItemChanges }>();
    for (const e of events) {
      if (e.type === 'ManagedFilingItemAdded') {
        const i = e.data.item;
        added.push({
          id: i.id,
          filing_id: i.filingId,
          artifact_id: i.artifactId,
          artifact_version_id: i.artifactVersionId,
          schedule_type: i.scheduleType ?? null,
          schedule_seq_no: i.scheduleSeqNo ?? null,
          context: i.context ?? null,
          attachments: i.attachments ?? [],
          created_at: i.createdAt,
          updated_at: i.updatedAt,
          version: e.version,
        });
      } else if (e.type === 'ManagedFilingItemChanged') {
        const prev = changed.get(e.data.itemId);
        changed.set(e.data.itemId, { id: e.data.itemId, version: e.version, updated_at: e.data.updatedAt, c: { ...prev?.c, ...e.data.changes } });
      } else notApplied(e);
    }
    const out: SqlStatement[] = [];
    const insert = upsertStatement(t('managed_filing_items'), added, { conflict: ['id'], update: 'ignore' });
    if (insert) out.push(insert);
    if (!changed.size) return out;
    // A key present in the folded changes sets the column (to null, too: unassigning a schedule); an
    // absent key keeps it. The stream version orders the changes: a replayed older change never wins.
    const set = (col: string, key: keyof ItemChanges, expr: string) => `${col} = case when v.c -> '${key}' is not null then ${expr} else t.${col} end`;
    out.push({
      text: `update ${t('managed_filing_items')} as t set
         ${set('artifact_id', 'artifactId', `cast(v.c ->> 'artifactId' as uuid)`)},
         ${set('artifact_version_id', 'artifactVersionId', `v.c ->> 'artifactVersionId'`)},
         ${set('schedule_type', 'scheduleType', `v.c ->> 'scheduleType'`)},
         ${set('schedule_seq_no', 'scheduleSeqNo', `cast(v.c ->> 'scheduleSeqNo' as integer)`)},
         ${set('context', 'context', `v.c ->> 'context'`)},
         ${set('attachments', 'attachments', `v.c -> 'attachments'`)},
         updated_at = v.updated_at, version = v.version
       from jsonb_to_recordset(cast($1 as jsonb)) as v(id uuid, version integer, updated_at timestamptz, c jsonb)
       where t.id = v.id and t.version < v.version`,
      values: [JSON.stringify([...changed.values()])],
      reuse: true,
    });
    return out;
  }
}
