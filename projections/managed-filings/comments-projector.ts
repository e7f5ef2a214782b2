import type { Knex } from 'knex';
import type { CommentState, ManagedFilingEvent } from '../../src/domain/events/managed-filings';
import type { ScriptedProjector } from '../engine';
import { type ProjectionContext, type TableNamer, notApplied, type EventCoverage, type ProjectedEvent } from '../projector';
import { upsertStatement, type SqlStatement } from '../batch-sql';
import { runStatements } from '../batch-script';
import { MANAGED_FILING_COMMENTS_PROJECTION, WORKING_FILINGS_RUN_GROUP } from '../../src/read-models/projection-names';

const HANDLES = {
  ManagedFilingCreated: 'ignored',
  ManagedFilingUpdated: 'ignored',
  ManagedFilingShared: 'ignored',
  ManagedFilingItemAdded: 'ignored',
  ManagedFilingItemChanged: 'ignored',
  FilingCommentPosted: 'applied',
  FilingCommentEdited: 'applied',
  FilingCommentDeleted: 'applied',
  FilingThreadResolved: 'applied',
  FilingThreadReopened: 'applied',
} as const satisfies EventCoverage<ManagedFilingEvent>;

type Projected = ProjectedEvent<ManagedFilingEvent, typeof HANDLES>;

/** The comment timeline of each filing (messages, status events, tombstones) and each thread's current status. */
export class ManagedFilingCommentsProjector implements ScriptedProjector<ManagedFilingEvent, typeof HANDLES> {
  readonly name = MANAGED_FILING_COMMENTS_PROJECTION;
  readonly runGroup = WORKING_FILINGS_RUN_GROUP;
  readonly version = 1;
  readonly tables = ['managed_filing_comments', 'managed_filing_threads'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('managed_filing_comments')} (
        id uuid primary key, filing_id uuid not null, thread_id uuid not null, parent_comment_id uuid, comment_type text not null,
        actor text not null, body text not null, data jsonb not null, deleted boolean not null, edited_at timestamptz,
        created_at timestamptz not null, version integer not null);
      create index on ${t('managed_filing_comments')} (filing_id, created_at, id);
      create table ${t('managed_filing_threads')} (filing_id uuid not null, thread_id uuid not null, status text not null, version integer not null,
        primary key (filing_id, thread_id));
    `);
  }

  private row(filingId: string, c: CommentState, version: number): Record<string, unknown> {
    return {
      id: c.id,
      filing_id: filingId,
      thread_id: c.threadId,
      parent_comment_id: c.parentCommentId,
      comment_type: c.commentType,
      actor: c.actor,
      body: c.body,
      data: c.data,
      deleted: c.deleted,
      edited_at: c.editedAt,
      created_at: c.createdAt,
      version,
    };
  }

  /**
   * A batch in a few statements: new timeline entries in one insert, thread statuses in one upsert
   * (the last per thread), then edits and tombstones in order. Entries are inserted first because an
   * edit or a deletion can only follow its comment's creation in the stream.
   */
  async apply({ trx, table }: ProjectionContext, events: Projected[]): Promise<void> {
    await runStatements(trx, this.batchStatements(events, table));
  }

  batchStatements(events: Projected[], t: TableNamer): SqlStatement[] {
    const inserts: Record<string, unknown>[] = [];
    const statuses = new Map<string, { filing_id: string; thread_id: string; status: string; version: number }>();
    const status = (filingId: string, threadId: string, value: string, version: number) =>
      statuses.set(`${filingId}/${threadId}`, { filing_id: filingId, thread_id: threadId, status: value, version });
    const changes: Projected[] = [];
    for (const e of events) {
      switch (e.type) {
        case 'FilingCommentPosted':
          inserts.push(this.row(e.data.filingId, e.data.comment, e.version));
          if (e.data.comment.parentCommentId === null) status(e.data.filingId, e.data.comment.threadId, 'open', e.version);
          break;
        case 'FilingThreadResolved':
        case 'FilingThreadReopened':
          inserts.push(this.row(e.data.filingId, e.data.comment, e.version));
          status(e.data.filingId, e.data.threadId, e.type === 'FilingThreadResolved' ? 'resolved' : 'open', e.version);
          break;
        case 'FilingCommentEdited':
        case 'FilingCommentDeleted':
          changes.push(e);
          break;
        default:
          notApplied(e);
      }
    }
    const out: SqlStatement[] = [];
    const insert = upsertStatement(t('managed_filing_comments'), inserts, { conflict: ['id'], update: 'ignore' });
    if (insert) out.push(insert);
    const threads = upsertStatement(t('managed_filing_threads'), [...statuses.values()], { conflict: ['filing_id', 'thread_id'], update: ['status', 'version'], newerBy: 'version' });
    if (threads) out.push(threads);
    for (const e of changes) {
      if (e.type === 'FilingCommentEdited')
        out.push({ text: `update ${t('managed_filing_comments')} set body = $1, edited_at = $2, version = $3 where id = $4 and version < $3`, values: [e.data.body, e.data.editedAt, e.version, e.data.commentId], reuse: true });
      // A tombstone: the entry stays in the timeline, its text does not.
      else if (e.type === 'FilingCommentDeleted')
        out.push({ text: `update ${t('managed_filing_comments')} set deleted = true, body = '', data = '{}', version = $1 where id = $2 and version < $1`, values: [e.version, e.data.commentId], reuse: true });
    }
    return out;
  }
}
