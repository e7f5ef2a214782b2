import type { FilingFields, FilingMode, ScheduleType } from '../filing-fields';

/**
 * Managed filing events (stream `managedFiling-<uuid>`): the filing's fields, its items and its comment
 * timeline, with the item and comment shapes they carry.
 */

export interface Attachment {
  artifactId: string;
  artifactVersionId: string;
  artifactName: string;
  artifactVersionNumber: number;
}

export interface ItemState {
  id: string;
  filingId: string;
  artifactId: string;
  artifactVersionId: string;
  scheduleType: ScheduleType | null;
  scheduleSeqNo: number | null;
  context: string | null;
  attachments: Attachment[];
  createdAt: string;
  updatedAt: string;
}

export type ItemChanges = Partial<Pick<ItemState, 'artifactId' | 'artifactVersionId' | 'scheduleType' | 'scheduleSeqNo' | 'context' | 'attachments'>>;

export type CommentType = 'message' | 'status_change';
export type ThreadStatus = 'open' | 'resolved';

export interface CommentState {
  id: string;
  threadId: string;
  parentCommentId: string | null;
  commentType: CommentType;
  actor: string;
  body: string;
  data: Record<string, unknown>;
  deleted: boolean;
  editedAt: string | null;
  createdAt: string;
}

export type ManagedFilingEvent =
  | {
      type: 'ManagedFilingCreated';
      data: { filingId: string; scope: string; scopeId: string; tenantId: string; filingMode: FilingMode; fields: FilingFields; createdAt: string; createdBy: string | null };
    }
  | { type: 'ManagedFilingUpdated'; data: { filingId: string; changes: Partial<FilingFields> & { filingMode?: FilingMode }; updatedAt: string } }
  | { type: 'ManagedFilingShared'; data: { filingId: string; scope: string; scopeId: string; tenantId: string; sharedAt: string } }
  | { type: 'ManagedFilingItemAdded'; data: { filingId: string; item: ItemState } }
  | { type: 'ManagedFilingItemChanged'; data: { filingId: string; itemId: string; changes: ItemChanges; updatedAt: string } }
  | { type: 'FilingCommentPosted'; data: { filingId: string; comment: CommentState } }
  | { type: 'FilingCommentEdited'; data: { filingId: string; commentId: string; body: string; editedAt: string } }
  | { type: 'FilingCommentDeleted'; data: { filingId: string; commentId: string; deletedAt: string; actor: string } }
  | { type: 'FilingThreadResolved'; data: { filingId: string; threadId: string; comment: CommentState } }
  | { type: 'FilingThreadReopened'; data: { filingId: string; threadId: string; comment: CommentState } };
