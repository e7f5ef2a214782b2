import { assertNever } from './decider';
import type { CommentState, ItemState, ManagedFilingEvent, ThreadStatus } from './events/managed-filings';
import type { FilingFields, FilingMode } from './filing-fields';

/**
 * A managed filing folded from its stream: what the decider decides on and what the read side's access
 * checks and records are shaped as. Pure: the decide part stays with the commands.
 */
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
