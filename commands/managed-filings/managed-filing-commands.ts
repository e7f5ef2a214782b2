import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { CommandHandler } from '../command-handler';
import type { CommandGuard } from '../../src/ports/command-guard';
import { StreamStateCache } from '../stream-state-cache';
import { invalidRequest, notFound, type ErrorDetail } from '../../src/domain/errors';
import type { EventMetadata, RecordedEvent } from '../../src/domain/events';
import type { Principal } from '../../src/domain/principal';
import type { WriteTrace } from '../../src/ports/write-trace';
import { scopeIdOf, type FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import type { ReferenceLookups } from '../../src/read-models/working-filings/reference-lookups';
import { artifactIdsOf, withCurrentArtifacts, type ArtifactRef } from '../../src/read-models/working-filings/current-artifacts';
import { commentFromState, fullFilingFromState, itemFromState } from '../../src/read-models/working-filings/records';
import {
  MANAGED_FILINGS_PROJECTION,
  MANAGED_FILING_COMMENTS_PROJECTION,
  MANAGED_FILING_HISTORY_PROJECTION,
  MANAGED_FILING_ITEMS_PROJECTION,
} from '../../src/read-models/projection-names';
import { completeFields, type FilingFields, type ScheduleType } from '../../src/domain/filing-fields';
import { managedFilingDecider, type ManagedFilingCommand } from './managed-filing';
import type { ManagedFilingState } from '../../src/domain/managed-filing-state';
import type { Attachment, ItemChanges } from '../../src/domain/events/managed-filings';

export type CreateFilingInput = Partial<FilingFields> & Pick<FilingFields, 'companyId' | 'jurisdictionId' | 'primaryProductId' | 'filingType'> & { scope: string };

export interface ItemInput {
  artifactId?: string;
  scheduleType?: ScheduleType | null;
  scheduleSeqNo?: number | null;
  context?: string;
  attachments?: { artifactId: string; artifactName?: string }[];
}

/** Last-write-wins writes re-decide on a version conflict; this bounds how often under heavy contention. */
const LWW_RETRIES = 500;

/** Whether filing changes name listing ids, which must be checked against the filing's scope before deciding. */
const namesListings = (c: Partial<FilingFields>) =>
  c.companyId !== undefined || c.jurisdictionId !== undefined || c.primaryProductId !== undefined || c.additionalProductIds !== undefined;

export const streamOf = (filingId: string) => `managedFiling-${filingId}`;

/** The data of the written event of `type` (a recovery knows which event its command appends). */
function writtenData<D>(written: RecordedEvent[], type: string): D {
  const e = written.find((w) => w.type === type);
  if (!e) throw new Error(`keyed write recovery: no ${type} among the written events`);
  return e.data as D;
}

/** The item changes that name no artifact. */
function placementAndContext(input: ItemInput): ItemChanges {
  const changes: ItemChanges = {};
  if (input.scheduleType !== undefined) changes.scheduleType = input.scheduleType;
  if (input.scheduleSeqNo !== undefined) changes.scheduleSeqNo = input.scheduleSeqNo;
  if (input.context !== undefined) changes.context = input.context;
  return changes;
}

/**
 * The working-filing write path: authorize through the read side (404 unseen / 403 unchangeable),
 * resolve references, then run one decider command and answer from the decided state once the read
 * models of the matching GETs have caught up.
 */
/** A write's event metadata, and the request's write trace when it holds an Idempotency-Key. */
interface WriteMeta {
  metadata: EventMetadata;
  trace?: WriteTrace;
}

export class ManagedFilingCommands {
  /** Filings this process wrote last: a burst of edits to one filing reads its stream once. */
  private readonly states = new StreamStateCache<ManagedFilingState>();

  constructor(
    private readonly handler: CommandHandler,
    private readonly access: FilingAccessService,
    private readonly lookups: ReferenceLookups,
    private readonly knex: Knex,
    private readonly now: () => Date = () => new Date(),
  ) {}

  private meta(p: Principal, requestId: string | null, trace: WriteTrace | undefined): WriteMeta {
    return { metadata: { tenantId: p.tenantId, actor: p.userId, requestId }, trace };
  }

  /**
   * `guard`: the caller's permission, checked inside the append (see CommandGuard), for commands
   * that need nothing else from the read side before deciding; the others check before calling.
   */
  private run<G = undefined>(
    filingId: string,
    cmd: ManagedFilingCommand | ((state: ManagedFilingState) => Promise<ManagedFilingCommand>),
    meta: WriteMeta,
    waitFor: string[],
    retries = 0,
    guard?: CommandGuard<G, ManagedFilingState>,
  ) {
    return this.handler.execute(managedFilingDecider, streamOf(filingId), cmd, {
      metadata: meta.metadata,
      trace: meta.trace,
      waitFor: [...waitFor, MANAGED_FILING_HISTORY_PROJECTION],
      retries,
      cache: this.states,
      // A create names a filing id generated just now: there is no stream to read.
      newStream: typeof cmd !== 'function' && cmd.type === 'CreateFiling',
      guard,
    });
  }

  async create(p: Principal, input: CreateFilingInput, requestId: string | null, trace?: WriteTrace) {
    const { scope, ...rest } = input;
    const fields = completeFields(rest);
    // The grant and the listing ids are checked inside the append; the scope's id and name come from
    // the request (a scope is found by its id, and its name is `mc:` and that id).
    const guard = this.lookups.editableScopeListingGuard(p, scope, fields);
    const filingId = crypto.randomUUID();
    const r = await this.run(
      filingId,
      { type: 'CreateFiling', filingId, scope, scopeId: scopeIdOf(scope), tenantId: p.tenantId, fields, now: this.now().toISOString(), actor: p.userId },
      this.meta(p, requestId, trace),
      [MANAGED_FILINGS_PROJECTION],
      0,
      guard,
    );
    return fullFilingFromState(r.state, this.access.permissionsFor(p, 'managed', r.guard!.role));
  }

  async update(p: Principal, filingId: string, changes: Partial<FilingFields>, requestId: string | null, trace?: WriteTrace) {
    const cmd = { type: 'UpdateFiling' as const, changes, now: this.now().toISOString() };
    if (!namesListings(changes)) {
      const r = await this.run(filingId, cmd, this.meta(p, requestId, trace), [MANAGED_FILINGS_PROJECTION], LWW_RETRIES, this.access.editableFilingGuard(p, filingId));
      return fullFilingFromState(r.state, this.access.permissionsFor(p, 'managed', r.guard!.role));
    }
    const a = await this.access.editableFiling(p, filingId);
    await this.lookups.checkListings(a.row.scope_id, changes);
    const r = await this.run(filingId, cmd, this.meta(p, requestId, trace), [MANAGED_FILINGS_PROJECTION], LWW_RETRIES);
    return fullFilingFromState(r.state, a.permissions);
  }

  /**
   * Resolves the artifact references the input names (found by `find`, in the filing's scope):
   * unknown or foreign artifacts are 400 with the body path. Answers the changes and what `find`
   * found, which also holds the current state of any `alsoIds` (the item's other artifacts).
   */
  private async resolveArtifacts(input: ItemInput, find: (ids: string[]) => Promise<Map<string, ArtifactRef>>, alsoIds: string[] = []) {
    const named = [...(input.artifactId !== undefined ? [input.artifactId] : []), ...(input.attachments ?? []).map((a) => a.artifactId)];
    const found = await find([...named, ...alsoIds]);
    const details: ErrorDetail[] = [];
    const unknown = (path: (string | number)[]) =>
      details.push({ location: 'body', path: path.map(String), code: 'invalid_value', message: 'No artifact with this id exists in the filing\'s scope.' });
    const changes: ItemChanges = {};
    if (input.artifactId !== undefined) {
      const a = found.get(input.artifactId);
      if (!a) unknown(['artifactId']);
      else Object.assign(changes, { artifactId: a.id, artifactVersionId: a.currentVersionId });
    }
    if (input.attachments !== undefined) {
      const attachments: Attachment[] = [];
      input.attachments.forEach((att, i) => {
        const a = found.get(att.artifactId);
        if (!a) unknown(['attachments', i, 'artifactId']);
        // The name and version come from the artifact itself, so a listing never shows a stale or invented name.
        else attachments.push({ artifactId: a.id, artifactVersionId: a.currentVersionId, artifactName: a.name, artifactVersionNumber: a.currentVersionNumber });
      });
      changes.attachments = attachments;
    }
    if (details.length) throw invalidRequest(details[0].message, details);
    return { changes: { ...changes, ...placementAndContext(input) }, found };
  }

  async addItem(p: Principal, filingId: string, input: ItemInput & { artifactId: string }, requestId: string | null, trace?: WriteTrace) {
    const a = await this.access.editableFiling(p, filingId);
    const { changes: c, found } = await this.resolveArtifacts(input, (ids) => this.lookups.artifacts(a.row.scope_id, ids));
    const itemId = crypto.randomUUID();
    const r = await this.run(
      filingId,
      {
        type: 'AddItem',
        item: {
          id: itemId,
          artifactId: c.artifactId!,
          artifactVersionId: c.artifactVersionId!,
          scheduleType: c.scheduleType ?? null,
          scheduleSeqNo: c.scheduleSeqNo ?? null,
          context: c.context ?? null,
          attachments: c.attachments ?? [],
        },
        now: this.now().toISOString(),
      },
      this.meta(p, requestId, trace),
      [MANAGED_FILING_ITEMS_PROJECTION],
      LWW_RETRIES,
    );
    return itemFromState(withCurrentArtifacts(r.state.items[itemId], found));
  }

  /**
   * The answer shows the item's artifacts at their current versions (see current-artifacts.ts), found
   * in a statement the PATCH makes anyway: the guarded append's, or the look-up of the named artifacts.
   */
  async patchItem(p: Principal, filingId: string, itemId: string, input: ItemInput, requestId: string | null, trace?: WriteTrace) {
    const now = this.now().toISOString();
    if (input.artifactId === undefined && input.attachments === undefined) {
      // Names no artifact, so nothing needs the filing's scope before deciding: the access check and the
      // current versions of the item's artifacts ride in the append's own statement.
      const cmd = { type: 'PatchItem' as const, itemId, changes: placementAndContext(input), now };
      const r = await this.run(filingId, cmd, this.meta(p, requestId, trace), [MANAGED_FILING_ITEMS_PROJECTION], LWW_RETRIES, this.access.editableItemGuard(p, filingId, itemId));
      const item = r.state.items[itemId];
      // Null when the guard was checked on its own (a store without guarded appends): one look-up more.
      const current = r.guard!.artifacts ?? (await this.lookups.artifacts(r.state.scopeId!, artifactIdsOf(item)));
      return itemFromState(withCurrentArtifacts(item, current));
    }
    // Artifacts are looked up in the filing's scope, which the access check finds.
    const a = await this.access.editableFiling(p, filingId);
    const find = this.lookups.artifactsOnce(a.row.scope_id);
    let found = new Map<string, ArtifactRef>();
    const r = await this.run(
      filingId,
      // Decided on the stream's state, so the one look-up also finds the artifacts of the item that the PATCH leaves as they are.
      async (state) => {
        const item = Object.hasOwn(state.items, itemId) ? state.items[itemId] : undefined;
        const resolved = await this.resolveArtifacts(input, find, item ? artifactIdsOf(item) : []);
        found = resolved.found;
        return { type: 'PatchItem', itemId, changes: resolved.changes, now };
      },
      this.meta(p, requestId, trace),
      [MANAGED_FILING_ITEMS_PROJECTION],
      LWW_RETRIES,
    );
    return itemFromState(withCurrentArtifacts(r.state.items[itemId], found));
  }

  /** Comment commands need only edit permission before deciding: it is checked inside the append. */
  private async comment(p: Principal, filingId: string, cmd: ManagedFilingCommand, commentId: string, requestId: string | null, trace?: WriteTrace) {
    const r = await this.run(filingId, cmd, this.meta(p, requestId, trace), [MANAGED_FILING_COMMENTS_PROJECTION], LWW_RETRIES, this.access.editableFilingGuard(p, filingId));
    const c = r.state.comments[commentId];
    return commentFromState(filingId, c, r.state.threads[c.threadId]);
  }

  async postComment(p: Principal, filingId: string, input: { body: string; parentCommentId?: string | null }, requestId: string | null, trace?: WriteTrace) {
    const commentId = crypto.randomUUID();
    return this.comment(
      p,
      filingId,
      { type: 'PostComment', commentId, parentCommentId: input.parentCommentId ?? null, actor: p.userId, body: input.body, now: this.now().toISOString() },
      commentId,
      requestId,
      trace,
    );
  }

  async editComment(p: Principal, filingId: string, commentId: string, body: string, requestId: string | null, trace?: WriteTrace) {
    return this.comment(p, filingId, { type: 'EditComment', commentId, actor: p.userId, body, now: this.now().toISOString() }, commentId, requestId, trace);
  }

  async deleteComment(p: Principal, filingId: string, commentId: string, requestId: string | null, trace?: WriteTrace): Promise<void> {
    const a = await this.access.editableFiling(p, filingId);
    await this.run(
      filingId,
      { type: 'DeleteComment', commentId, actor: p.userId, actorIsManager: a.role === 'manager', now: this.now().toISOString() },
      this.meta(p, requestId, trace),
      [MANAGED_FILING_COMMENTS_PROJECTION],
      LWW_RETRIES,
    );
  }

  /** Resolve or reopen the thread of a comment; answers the thread's first comment with the new status. */
  async setThreadStatus(p: Principal, filingId: string, commentId: string, status: 'resolved' | 'open', requestId: string | null, trace?: WriteTrace) {
    const r = await this.run(
      filingId,
      { type: status === 'resolved' ? 'ResolveThread' : 'ReopenThread', commentId, statusCommentId: crypto.randomUUID(), actor: p.userId, now: this.now().toISOString() },
      this.meta(p, requestId, trace),
      [MANAGED_FILING_COMMENTS_PROJECTION],
      LWW_RETRIES,
      this.access.editableFilingGuard(p, filingId),
    );
    const threadId = r.state.comments[commentId].threadId;
    return commentFromState(filingId, r.state.comments[threadId], r.state.threads[threadId]);
  }

  /**
   * The recovered answers of keyed writes whose host died after appending `written` (RouteSpec.recover): each is
   * rebuilt from the filing's current state once the read side has reached the write, as the write's own answer was.
   */
  private async recoveredState(filingId: string, written: RecordedEvent[], waitFor: string) {
    const { state } = await this.handler.load(managedFilingDecider, streamOf(filingId));
    if (!state.id) throw new Error(`keyed write recovery: filing ${filingId} has no stream`);
    await this.handler.awaitProjections(written[written.length - 1].position, [waitFor, MANAGED_FILING_HISTORY_PROJECTION]);
    return state;
  }

  async recoverCreate(p: Principal, written: RecordedEvent[]) {
    const { filingId } = writtenData<{ filingId: string }>(written, 'ManagedFilingCreated');
    const state = await this.recoveredState(filingId, written, MANAGED_FILINGS_PROJECTION);
    return fullFilingFromState(state, (await this.access.filing(p, filingId)).permissions);
  }

  async recoverItem(filingId: string, written: RecordedEvent[]) {
    const { item } = writtenData<{ item: { id: string } }>(written, 'ManagedFilingItemAdded');
    const state = await this.recoveredState(filingId, written, MANAGED_FILING_ITEMS_PROJECTION);
    const now = state.items[item.id];
    return itemFromState(withCurrentArtifacts(now, await this.lookups.artifacts(state.scopeId!, artifactIdsOf(now))));
  }

  async recoverComment(filingId: string, written: RecordedEvent[]) {
    const { comment } = writtenData<{ comment: { id: string } }>(written, 'FilingCommentPosted');
    const state = await this.recoveredState(filingId, written, MANAGED_FILING_COMMENTS_PROJECTION);
    const c = state.comments[comment.id];
    return commentFromState(filingId, c, state.threads[c.threadId]);
  }

  async recoverThreadStatus(filingId: string, commentId: string, written: RecordedEvent[]) {
    const state = await this.recoveredState(filingId, written, MANAGED_FILING_COMMENTS_PROJECTION);
    const threadId = state.comments[commentId].threadId;
    return commentFromState(filingId, state.comments[threadId], state.threads[threadId]);
  }

  /**
   * Operator command: share a filing into a scope of another tenant (read only there, and visible only
   * while that tenant's sharing is on).
   */
  async share(filingId: string, scope: string, meta: EventMetadata) {
    const target = await this.knex('identity_scopes').where({ scope }).first('scope_id', 'tenant_id', 'active');
    if (!target || !target.active) throw notFound(`no active scope ${scope}`);
    await this.run(
      filingId,
      { type: 'ShareFiling', scope, scopeId: target.scope_id, tenantId: target.tenant_id, now: this.now().toISOString() },
      { metadata: { ...meta, tenantId: target.tenant_id } },
      [MANAGED_FILINGS_PROJECTION],
      LWW_RETRIES,
    );
    return { filingId, scope, shared: true as const };
  }
}
