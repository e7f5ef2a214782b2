import { assertNever, type Decider } from '../../src/domain/decider';
import { DomainError, type ErrorDetail } from '../../src/domain/errors';
import { subToiFits } from '../../src/domain/toi-codes';
import { FILING_FIELD_NAMES, type FilingFields, type FilingMode } from '../../src/domain/filing-fields';
import type { CommentState, ItemChanges, ItemState, ManagedFilingEvent, ThreadStatus } from '../../src/domain/events/managed-filings';
import { evolveManagedFiling, initialManagedFilingState, type ManagedFilingState } from '../../src/domain/managed-filing-state';

/**
 * The managed filing aggregate (stream `managedFiling-<uuid>`): the filing's fields, its items and its
 * comment timeline live in one stream, so one expected version orders every change to a filing and
 * its history is one stream for auditors.
 */

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
  initialState: initialManagedFilingState,
  evolve: evolveManagedFiling,

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
