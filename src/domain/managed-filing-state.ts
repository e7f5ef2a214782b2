import { assertNever } from './decider';
import type { FilingFields, FilingMode, ScheduleType } from './filing-fields';

/**
 * The managed filing aggregate's events and the state they fold to (stream `managedFiling-<uuid>`).
 * Here, below commands/ and queries/, because both fold them: the decider decides on the state, and
 * the auditors' reads (point in time, change history) rebuild it from the log with the same evolve.
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

export const MANAGED_FILING_EVENT_TYPES: ManagedFilingEvent['type'][] = [
  'ManagedFilingCreated',
  'ManagedFilingUpdated',
  'ManagedFilingShared',
  'ManagedFilingItemAdded',
  'ManagedFilingItemChanged',
  'FilingCommentPosted',
  'FilingCommentEdited',
  'FilingCommentDeleted',
  'FilingThreadResolved',
  'FilingThreadReopened',
];

export interface ManagedFilingState {
  exists: boolean;
  id: string | null;
  scope: string | null;
  scopeId: string | null;
  tenantId: string | null;
  filingMode: FilingMode;
  fields: FilingFields | null;
  createdAt: string | null;
  updatedAt: string | null;
  sharedInto: string[];
  items: Record<string, ItemState>;
  comments: Record<string, CommentState>;
  /** Thread id (its first comment's id) → current status. */
  threads: Record<string, ThreadStatus>;
}

export function initialManagedFilingState(): ManagedFilingState {
  return {
    exists: false,
    id: null,
    scope: null,
    scopeId: null,
    tenantId: null,
    filingMode: null,
    fields: null,
    createdAt: null,
    updatedAt: null,
    sharedInto: [],
    items: {},
    comments: {},
    threads: {},
  };
}

export function evolveManagedFiling(state: ManagedFilingState, event: ManagedFilingEvent): ManagedFilingState {
  switch (event.type) {
    case 'ManagedFilingCreated': {
      const d = event.data;
      return { ...state, exists: true, id: d.filingId, scope: d.scope, scopeId: d.scopeId, tenantId: d.tenantId, filingMode: d.filingMode, fields: d.fields, createdAt: d.createdAt, updatedAt: d.createdAt };
    }
    case 'ManagedFilingUpdated': {
      const { filingMode, ...fields } = event.data.changes;
      return { ...state, filingMode: filingMode === undefined ? state.filingMode : filingMode, fields: { ...state.fields!, ...fields }, updatedAt: event.data.updatedAt };
    }
    case 'ManagedFilingShared':
      return { ...state, sharedInto: [...state.sharedInto, event.data.scopeId] };
    case 'ManagedFilingItemAdded':
      return { ...state, items: { ...state.items, [event.data.item.id]: event.data.item } };
    case 'ManagedFilingItemChanged': {
      const item = state.items[event.data.itemId];
      return { ...state, items: { ...state.items, [item.id]: { ...item, ...event.data.changes, updatedAt: event.data.updatedAt } } };
    }
    case 'FilingCommentPosted': {
      const c = event.data.comment;
      const threads = c.parentCommentId === null ? { ...state.threads, [c.threadId]: 'open' as const } : state.threads;
      return { ...state, comments: { ...state.comments, [c.id]: c }, threads };
    }
    case 'FilingCommentEdited': {
      const c = state.comments[event.data.commentId];
      return { ...state, comments: { ...state.comments, [c.id]: { ...c, body: event.data.body, editedAt: event.data.editedAt } } };
    }
    case 'FilingCommentDeleted': {
      const c = state.comments[event.data.commentId];
      return { ...state, comments: { ...state.comments, [c.id]: { ...c, deleted: true, body: '', data: {} } } };
    }
    case 'FilingThreadResolved':
    case 'FilingThreadReopened': {
      const c = event.data.comment;
      return {
        ...state,
        comments: { ...state.comments, [c.id]: c },
        threads: { ...state.threads, [event.data.threadId]: event.type === 'FilingThreadResolved' ? 'resolved' : 'open' },
      };
    }
    default:
      return assertNever(event);
  }
}
