import type { Knex } from 'knex';
import type { CommentState, ManagedFilingEvent } from '../../commands/managed-filings/managed-filing';
import type { RecordedEvent } from '../../src/domain/events';
import type { GroupedProjector } from '../engine';
import type { ProjectionContext, TableNamer } from '../projector';
import { MANAGED_FILING_COMMENTS_PROJECTION, WORKING_FILINGS_RUN_GROUP } from './names';

/** The comment timeline of each filing (messages, status events, tombstones) and each thread's current status. */
export class ManagedFilingCommentsProjector implements GroupedProjector {
  readonly name = MANAGED_FILING_COMMENTS_PROJECTION;
  readonly runGroup = WORKING_FILINGS_RUN_GROUP;
  readonly version = 1;
  readonly tables = ['managed_filing_comments', 'managed_filing_threads'];
  readonly eventTypes = ['FilingCommentPosted', 'FilingCommentEdited', 'FilingCommentDeleted', 'FilingThreadResolved', 'FilingThreadReopened'];

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
      data: JSON.stringify(c.data),
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
  async apply({ trx, table: t }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    const inserts: Record<string, unknown>[] = [];
    const statuses = new Map<string, { filing_id: string; thread_id: string; status: string; version: number }>();
    const status = (filingId: string, threadId: string, value: string, version: number) =>
      statuses.set(`${filingId}/${threadId}`, { filing_id: filingId, thread_id: threadId, status: value, version });
    const changes: { raw: RecordedEvent; e: ManagedFilingEvent }[] = [];
    for (const raw of events) {
      const e = raw as unknown as ManagedFilingEvent;
      switch (e.type) {
        case 'FilingCommentPosted':
          inserts.push(this.row(e.data.filingId, e.data.comment, raw.version));
          if (e.data.comment.parentCommentId === null) status(e.data.filingId, e.data.comment.threadId, 'open', raw.version);
          break;
        case 'FilingThreadResolved':
        case 'FilingThreadReopened':
          inserts.push(this.row(e.data.filingId, e.data.comment, raw.version));
          status(e.data.filingId, e.data.threadId, e.type === 'FilingThreadResolved' ? 'resolved' : 'open', raw.version);
          break;
        case 'FilingCommentEdited':
        case 'FilingCommentDeleted':
          changes.push({ raw, e });
          break;
        default:
          break;
      }
    }
    for (let i = 0; i < inserts.length; i += 500) await trx(t('managed_filing_comments')).insert(inserts.slice(i, i + 500)).onConflict('id').ignore();
    const rows = [...statuses.values()];
    for (let i = 0; i < rows.length; i += 1000) {
      const chunk = rows.slice(i, i + 1000);
      await trx.raw(
        `insert into ${t('managed_filing_threads')} (filing_id, thread_id, status, version) values ${chunk.map(() => '(?, ?, ?, ?)').join(', ')}
         on conflict (filing_id, thread_id) do update set status = excluded.status, version = excluded.version
         where ${t('managed_filing_threads')}.version < excluded.version`,
        chunk.flatMap((r) => [r.filing_id, r.thread_id, r.status, r.version]),
      );
    }
    for (const { raw, e } of changes) {
      if (e.type === 'FilingCommentEdited')
        await trx(t('managed_filing_comments')).where({ id: e.data.commentId }).andWhere('version', '<', raw.version).update({ body: e.data.body, edited_at: e.data.editedAt, version: raw.version });
      // A tombstone: the entry stays in the timeline, its text does not.
      else if (e.type === 'FilingCommentDeleted')
        await trx(t('managed_filing_comments')).where({ id: e.data.commentId }).andWhere('version', '<', raw.version).update({ deleted: true, body: '', data: '{}', version: raw.version });
    }
  }
}
