import { assertNever, type Decider } from '../../src/domain/decider';
import { DomainError, type ErrorDetail } from '../../src/domain/errors';
import { subToiFits } from '../../src/domain/toi-codes';
import { FILING_FIELD_NAMES, type FilingFields, type FilingMode, type ScheduleType } from './filing-fields';

/**
 * The managed filing aggregate (stream `managedFiling-<uuid>`): the filing's fields, its items and its
 * comment timeline live in one stream, so one expected version orders every change to a filing and
 * its history is one stream for auditors.
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

export type ManagedFilingCommand =
  | { type: 'CreateFiling'; filingId: string; scope: string; scopeId: string; tenantId: string; fields: FilingFields; now: string; actor: string }
  /** Import of a reference or legacy (null-mode) record: creates it, or records what changed. */
  | { type: 'ImportFiling'; filingId: string; scope: string; scopeId: string; tenantId: string; filingMode: 'reference' | null; fields: FilingFields; now: string }
  | { type: 'UpdateFiling'; changes: Partial<FilingFields>; now: string }
  | { type: 'ShareFiling'; scope: string; scopeId: string; tenantId: string; now: string }
  | { type: 'AddItem'; item: Omit<ItemState, 'filingId' | 'createdAt' | 'updatedAt'>; now: string }
  | { type: 'PatchItem'; itemId: string; changes: ItemChanges; now: string }
  | { type: 'PostComment'; commentId: string; parentCommentId: string | null; actor: string; body: string; now: string }
  | { type: 'EditComment'; commentId: string; actor: string; body: string; now: string }
  | { type: 'DeleteComment'; commentId: string; actor: string; actorIsManager: boolean; now: string }
  | { type: 'ResolveThread' | 'ReopenThread'; commentId: string; statusCommentId: string; actor: string; now: string };

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

const bodyError = (path: string[], message: string) =>
  new DomainError('invalid_request', message, 400, [{ location: 'body', path, code: 'invalid_value', message } satisfies ErrorDetail]);

const notFound = (what: string) => new DomainError('not_found', `${what} does not exist or is not visible to this caller.`, 404);

/** Cross-field rules on the resulting filing, including fields the command left unchanged. */
function checkFields(f: FilingFields): void {
  if (!subToiFits(f.toiCode, f.subToiCode)) {
    throw bodyError(
      ['subToiCode'],
      f.toiCode === null ? `subToiCode ${f.subToiCode} requires a toiCode.` : `subToiCode ${f.subToiCode} does not belong to toiCode ${f.toiCode}; change or clear it.`,
    );
  }
  if (f.additionalProductIds.includes(f.primaryProductId)) throw bodyError(['additionalProductIds'], 'additionalProductIds must not repeat primaryProductId.');
}

/** Scheduled (both fields set) or unscheduled (both null): never half placed. */
function checkPlacement(item: Pick<ItemState, 'scheduleType' | 'scheduleSeqNo'>): void {
  if ((item.scheduleType === null) !== (item.scheduleSeqNo === null)) {
    throw bodyError(
      [item.scheduleType === null ? 'scheduleType' : 'scheduleSeqNo'],
      'An item is scheduled with both scheduleType and scheduleSeqNo, or unscheduled with both null; this change would leave only one set.',
    );
  }
}

/**
 * An item or comment by an id from the request: own entries only. The records are plain objects, so a
 * path id such as `constructor` or `__proto__` would otherwise find an Object property, and the event
 * decided on it would fail every later fold of the stream and the projectors.
 */
function own<T>(record: Record<string, T>, id: string): T | undefined {
  return Object.hasOwn(record, id) ? record[id] : undefined;
}

function requireWritable(state: ManagedFilingState): void {
  if (!state.exists) throw notFound('The filing');
  if (state.filingMode !== 'managed') throw new DomainError('forbidden', `The filing is ${state.filingMode === 'reference' ? 'a reference' : 'a legacy (unclassified)'} filing and read-only.`, 403);
}

function diff(current: FilingFields, next: FilingFields): Partial<FilingFields> {
  const out: Record<string, unknown> = {};
  for (const k of FILING_FIELD_NAMES) if (JSON.stringify(current[k]) !== JSON.stringify(next[k])) out[k] = next[k];
  return out as Partial<FilingFields>;
}

function threadStatusComment(state: ManagedFilingState, cmd: Extract<ManagedFilingCommand, { type: 'ResolveThread' | 'ReopenThread' }>, threadId: string, status: ThreadStatus): CommentState {
  return {
    id: cmd.statusCommentId,
    threadId,
    parentCommentId: threadId,
    commentType: 'status_change',
    actor: cmd.actor,
    body: '',
    data: { status, previousStatus: state.threads[threadId] },
    deleted: false,
    editedAt: null,
    createdAt: cmd.now,
  };
}

export const managedFilingDecider: Decider<ManagedFilingState, ManagedFilingCommand, ManagedFilingEvent> = {
  initialState: () => ({
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
  }),

  evolve(state, event) {
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
  },

  decide(state, cmd) {
    switch (cmd.type) {
      case 'CreateFiling':
        if (state.exists) throw new DomainError('already_exists', 'The filing already exists.', 409);
        checkFields(cmd.fields);
        return [
          {
            type: 'ManagedFilingCreated',
            data: { filingId: cmd.filingId, scope: cmd.scope, scopeId: cmd.scopeId, tenantId: cmd.tenantId, filingMode: 'managed', fields: cmd.fields, createdAt: cmd.now, createdBy: cmd.actor },
          },
        ];
      case 'ImportFiling': {
        checkFields(cmd.fields);
        if (!state.exists) {
          return [
            {
              type: 'ManagedFilingCreated',
              data: { filingId: cmd.filingId, scope: cmd.scope, scopeId: cmd.scopeId, tenantId: cmd.tenantId, filingMode: cmd.filingMode, fields: cmd.fields, createdAt: cmd.now, createdBy: null },
            },
          ];
        }
        if (state.filingMode === 'managed') throw new DomainError('conflict', `filing ${cmd.filingId} is a working (managed) filing; imports may not overwrite it.`, 409);
        if (state.scopeId !== cmd.scopeId) throw new DomainError('conflict', `filing ${cmd.filingId} belongs to ${state.scope}; a filing cannot move to another scope.`, 409);
        const changes: Partial<FilingFields> & { filingMode?: FilingMode } = diff(state.fields!, cmd.fields);
        if (state.filingMode !== cmd.filingMode) changes.filingMode = cmd.filingMode;
        return Object.keys(changes).length ? [{ type: 'ManagedFilingUpdated', data: { filingId: state.id!, changes, updatedAt: cmd.now } }] : [];
      }
      case 'UpdateFiling': {
        requireWritable(state);
        const next = { ...state.fields!, ...cmd.changes };
        checkFields(next);
        const changes = diff(state.fields!, next);
        return Object.keys(changes).length ? [{ type: 'ManagedFilingUpdated', data: { filingId: state.id!, changes, updatedAt: cmd.now } }] : [];
      }
      case 'ShareFiling':
        if (!state.exists) throw notFound('The filing');
        if (cmd.tenantId === state.tenantId) throw new DomainError('invalid_request', 'A filing is shared into scopes of other tenants only.', 400);
        return state.sharedInto.includes(cmd.scopeId) ? [] : [{ type: 'ManagedFilingShared', data: { filingId: state.id!, scope: cmd.scope, scopeId: cmd.scopeId, tenantId: cmd.tenantId, sharedAt: cmd.now } }];
      case 'AddItem': {
        requireWritable(state);
        if (own(state.items, cmd.item.id)) throw new DomainError('already_exists', 'The item already exists.', 409);
        checkPlacement(cmd.item);
        return [{ type: 'ManagedFilingItemAdded', data: { filingId: state.id!, item: { ...cmd.item, filingId: state.id!, createdAt: cmd.now, updatedAt: cmd.now } } }];
      }
      case 'PatchItem': {
        requireWritable(state);
        const item = own(state.items, cmd.itemId);
        if (!item) throw notFound('The item');
        checkPlacement({ ...item, ...cmd.changes });
        // Every PATCH is recorded, even one that repeats current values: the history shows each write.
        return [{ type: 'ManagedFilingItemChanged', data: { filingId: state.id!, itemId: item.id, changes: cmd.changes, updatedAt: cmd.now } }];
      }
      case 'PostComment': {
        requireWritable(state);
        if (own(state.comments, cmd.commentId)) throw new DomainError('already_exists', 'The comment already exists.', 409);
        let threadId = cmd.commentId;
        if (cmd.parentCommentId !== null) {
          const parent = own(state.comments, cmd.parentCommentId);
          if (!parent || parent.commentType !== 'message') throw bodyError(['parentCommentId'], 'parentCommentId names no comment of this filing.');
          threadId = parent.threadId;
        }
        return [
          {
            type: 'FilingCommentPosted',
            data: {
              filingId: state.id!,
              comment: { id: cmd.commentId, threadId, parentCommentId: cmd.parentCommentId, commentType: 'message', actor: cmd.actor, body: cmd.body, data: {}, deleted: false, editedAt: null, createdAt: cmd.now },
            },
          },
        ];
      }
      case 'EditComment': {
        requireWritable(state);
        const c = own(state.comments, cmd.commentId);
        if (!c || c.commentType !== 'message') throw notFound('The comment');
        if (c.actor !== cmd.actor) throw new DomainError('forbidden', 'Only the author may edit a comment.', 403);
        if (c.deleted) throw new DomainError('comment_deleted', 'A deleted comment cannot be edited.', 409);
        return [{ type: 'FilingCommentEdited', data: { filingId: state.id!, commentId: c.id, body: cmd.body, editedAt: cmd.now } }];
      }
      case 'DeleteComment': {
        requireWritable(state);
        const c = own(state.comments, cmd.commentId);
        if (!c || c.commentType !== 'message') throw notFound('The comment');
        if (c.actor !== cmd.actor && !cmd.actorIsManager) throw new DomainError('forbidden', 'Only the author or a scope manager may delete a comment.', 403);
        return c.deleted ? [] : [{ type: 'FilingCommentDeleted', data: { filingId: state.id!, commentId: c.id, deletedAt: cmd.now, actor: cmd.actor } }];
      }
      case 'ResolveThread':
      case 'ReopenThread': {
        requireWritable(state);
        const c = own(state.comments, cmd.commentId);
        if (!c) throw notFound('The comment');
        const target: ThreadStatus = cmd.type === 'ResolveThread' ? 'resolved' : 'open';
        if (state.threads[c.threadId] === target) return [];
        const comment = threadStatusComment(state, cmd, c.threadId, target);
        return [
          cmd.type === 'ResolveThread'
            ? { type: 'FilingThreadResolved', data: { filingId: state.id!, threadId: c.threadId, comment } }
            : { type: 'FilingThreadReopened', data: { filingId: state.id!, threadId: c.threadId, comment } },
        ];
      }
      default:
        return assertNever(cmd);
    }
  },
};
