import type { Knex } from 'knex';
import type { CommentState, ManagedFilingEvent } from '../../commands/managed-filings/managed-filing';
import type { RecordedEvent } from '../../src/domain/events';
import type { ProjectionContext, Projector, TableNamer } from '../projector';
import { MANAGED_FILING_COMMENTS_PROJECTION } from './names';

/** The comment timeline of each filing (messages, status events, tombstones) and each thread's current status. */
export class ManagedFilingCommentsProjector implements Projector {
  readonly name = MANAGED_FILING_COMMENTS_PROJECTION;
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

  private async insert(trx: Knex.Transaction, t: TableNamer, filingId: string, c: CommentState, version: number): Promise<void> {
    await trx(t('managed_filing_comments'))
      .insert({
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
      })
      .onConflict('id')
      .ignore();
  }

  private async setStatus(trx: Knex.Transaction, t: TableNamer, filingId: string, threadId: string, status: string, version: number): Promise<void> {
    await trx.raw(
      `insert into ${t('managed_filing_threads')} (filing_id, thread_id, status, version) values (?, ?, ?, ?)
       on conflict (filing_id, thread_id) do update set status = excluded.status, version = excluded.version
       where ${t('managed_filing_threads')}.version < excluded.version`,
      [filingId, threadId, status, version],
    );
  }

  async apply({ trx, table: t }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    for (const raw of events) {
      const e = raw as unknown as ManagedFilingEvent;
      switch (e.type) {
        case 'FilingCommentPosted':
          await this.insert(trx, t, e.data.filingId, e.data.comment, raw.version);
          if (e.data.comment.parentCommentId === null) await this.setStatus(trx, t, e.data.filingId, e.data.comment.threadId, 'open', raw.version);
          break;
        case 'FilingCommentEdited':
          await trx(t('managed_filing_comments')).where({ id: e.data.commentId }).andWhere('version', '<', raw.version).update({ body: e.data.body, edited_at: e.data.editedAt, version: raw.version });
          break;
        case 'FilingCommentDeleted':
          // A tombstone: the entry stays in the timeline, its text does not.
          await trx(t('managed_filing_comments')).where({ id: e.data.commentId }).andWhere('version', '<', raw.version).update({ deleted: true, body: '', data: '{}', version: raw.version });
          break;
        case 'FilingThreadResolved':
        case 'FilingThreadReopened':
          await this.insert(trx, t, e.data.filingId, e.data.comment, raw.version);
          await this.setStatus(trx, t, e.data.filingId, e.data.threadId, e.type === 'FilingThreadResolved' ? 'resolved' : 'open', raw.version);
          break;
        default:
          break;
      }
    }
  }
}
