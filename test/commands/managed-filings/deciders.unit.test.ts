import assert from 'node:assert/strict';
import { artifactDecider } from '../../../commands/artifacts/artifact';
import type { ArtifactEvent } from '../../../src/domain/events/artifacts';
import { completeFields } from '../../../src/domain/filing-fields';
import { managedFilingDecider } from '../../../commands/managed-filings/managed-filing';
import type { ManagedFilingEvent } from '../../../src/domain/events/managed-filings';
import { scopeListingDecider } from '../../../commands/scope-listings/scope-listing-entry';
import { fold, type Decider } from '../../../src/domain/decider';
import { DomainError } from '../../../src/domain/errors';
import type { NewEvent } from '../../../src/domain/events';
import { SUB_TOI_CODES, TOI_CODES, subToiCodesOf } from '../../../src/domain/toi-codes';

/** given events / when command / then events (or the error code). */
function spec<S, C, E extends NewEvent>(d: Decider<S, C, E>) {
  return (given: E[], when: C) => {
    const state = fold(d, given as never);
    return {
      then: (expected: E[]) => assert.deepEqual(d.decide(state, when), expected),
      thenError: (code: string, status?: number) =>
        assert.throws(
          () => d.decide(state, when),
          (e: unknown) => e instanceof DomainError && e.code === code && (status === undefined || e.status === status),
        ),
      events: () => d.decide(state, when),
    };
  };
}

const F = 'f0000000-0000-4000-8000-000000000001';
const S = '50000000-0000-4000-8000-000000000001';
const NOW = '2025-01-01T00:00:00.000Z';
const LATER = '2025-01-02T00:00:00.000Z';
const fields = completeFields({ companyId: 'c', jurisdictionId: 'j', primaryProductId: 'p', filingType: 'form', toiCode: '04.0', subToiCode: '04.0001' });
const created: ManagedFilingEvent = {
  type: 'ManagedFilingCreated',
  data: { filingId: F, scope: `mc:${S}`, scopeId: S, tenantId: 't1', filingMode: 'managed', fields, createdAt: NOW, createdBy: 'u1' },
};
const reference: ManagedFilingEvent = { ...created, data: { ...created.data, filingMode: 'reference', createdBy: null } } as ManagedFilingEvent;
const item = { id: 'i1', artifactId: 'a1', artifactVersionId: 'v1', scheduleType: null, scheduleSeqNo: null, context: null, attachments: [] };
const itemAdded: ManagedFilingEvent = { type: 'ManagedFilingItemAdded', data: { filingId: F, item: { ...item, filingId: F, createdAt: NOW, updatedAt: NOW } } };
const message = (id: string, actor = 'u1', parent: string | null = null, thread = id) => ({
  id,
  threadId: thread,
  parentCommentId: parent,
  commentType: 'message' as const,
  actor,
  body: `body of ${id}`,
  data: {},
  deleted: false,
  editedAt: null,
  createdAt: NOW,
});
const posted = (c: ReturnType<typeof message>): ManagedFilingEvent => ({ type: 'FilingCommentPosted', data: { filingId: F, comment: c } });

describe('working-filing deciders', () => {
  const filing = spec(managedFilingDecider);
  const artifact = spec(artifactDecider);
  const listing = spec(scopeListingDecider);

  describe('managed filing', () => {
    it('a filing is created once, managed, and its subToiCode must belong to its toiCode', () => {
      filing([], { type: 'CreateFiling', filingId: F, scope: `mc:${S}`, scopeId: S, tenantId: 't1', fields, now: NOW, actor: 'u1' }).then([created]);
      filing([created], { type: 'CreateFiling', filingId: F, scope: `mc:${S}`, scopeId: S, tenantId: 't1', fields, now: NOW, actor: 'u1' }).thenError('already_exists');
      filing([], { type: 'CreateFiling', filingId: F, scope: `mc:${S}`, scopeId: S, tenantId: 't1', fields: { ...fields, subToiCode: '05.0001' }, now: NOW, actor: 'u1' }).thenError('invalid_request', 400);
    });

    it('an update is checked against the resulting filing including unchanged fields, and records only what changed', () => {
      filing([created], { type: 'UpdateFiling', changes: { toiCode: '05.0' }, now: LATER }).thenError('invalid_request', 400);
      filing([created], { type: 'UpdateFiling', changes: { toiCode: '05.0', subToiCode: '05.0001', description: null }, now: LATER }).then([
        { type: 'ManagedFilingUpdated', data: { filingId: F, changes: { toiCode: '05.0', subToiCode: '05.0001' }, updatedAt: LATER } },
      ]);
      filing([created], { type: 'UpdateFiling', changes: { description: null }, now: LATER }).then([]);
      filing([reference], { type: 'UpdateFiling', changes: { description: 'x' }, now: LATER }).thenError('forbidden', 403);
    });

    it('an import creates reference/null filings, appends nothing when unchanged and refuses to overwrite a managed one', () => {
      const cmd = { type: 'ImportFiling' as const, filingId: F, scope: `mc:${S}`, scopeId: S, tenantId: 't1', filingMode: 'reference' as const, fields, now: NOW };
      filing([], cmd).then([reference]);
      filing([reference], cmd).then([]);
      filing([reference], { ...cmd, filingMode: null, now: LATER }).then([{ type: 'ManagedFilingUpdated', data: { filingId: F, changes: { filingMode: null }, updatedAt: LATER } }]);
      filing([created], cmd).thenError('conflict');
      filing([reference], { ...cmd, scopeId: 'other' }).thenError('conflict');
    });

    it('a filing is shared into another tenant\'s scope once', () => {
      const share = { type: 'ShareFiling' as const, scope: 'mc:x', scopeId: 'x', tenantId: 't2', now: NOW };
      const shared: ManagedFilingEvent = { type: 'ManagedFilingShared', data: { filingId: F, scope: 'mc:x', scopeId: 'x', tenantId: 't2', sharedAt: NOW } };
      filing([created], share).then([shared]);
      filing([created, shared], share).then([]);
      filing([created], { ...share, tenantId: 't1' }).thenError('invalid_request');
    });

    it('items: scheduled with both fields or neither; reference filings are read-only; an unknown item is not_found', () => {
      filing([created], { type: 'AddItem', item, now: NOW }).then([itemAdded]);
      filing([created], { type: 'AddItem', item: { ...item, scheduleType: 'form' }, now: NOW }).thenError('invalid_request', 400);
      filing([reference], { type: 'AddItem', item, now: NOW }).thenError('forbidden', 403);
      filing([], { type: 'AddItem', item, now: NOW }).thenError('not_found', 404);
      filing([created, itemAdded], { type: 'PatchItem', itemId: 'i1', changes: { scheduleSeqNo: 3 }, now: LATER }).thenError('invalid_request');
      filing([created, itemAdded], { type: 'PatchItem', itemId: 'nope', changes: {}, now: LATER }).thenError('not_found', 404);
      const placed: ManagedFilingEvent = { type: 'ManagedFilingItemChanged', data: { filingId: F, itemId: 'i1', changes: { scheduleType: 'form', scheduleSeqNo: 3 }, updatedAt: LATER } };
      filing([created, itemAdded], { type: 'PatchItem', itemId: 'i1', changes: { scheduleType: 'form', scheduleSeqNo: 3 }, now: LATER }).then([placed]);
      filing([created, itemAdded, placed], { type: 'PatchItem', itemId: 'i1', changes: { scheduleSeqNo: 4 }, now: LATER }).then([
        { type: 'ManagedFilingItemChanged', data: { filingId: F, itemId: 'i1', changes: { scheduleSeqNo: 4 }, updatedAt: LATER } },
      ]);
      filing([created, itemAdded, placed], { type: 'PatchItem', itemId: 'i1', changes: { scheduleType: null, scheduleSeqNo: null }, now: LATER }).then([
        { type: 'ManagedFilingItemChanged', data: { filingId: F, itemId: 'i1', changes: { scheduleType: null, scheduleSeqNo: null }, updatedAt: LATER } },
      ]);
      const s = fold(managedFilingDecider, [created, itemAdded, placed] as never);
      assert.equal(s.items.i1.scheduleSeqNo, 3);
      assert.equal(s.items.i1.updatedAt, LATER);
    });

    it('comments: a reply joins its parent\'s thread; an unknown parent is refused', () => {
      filing([created], { type: 'PostComment', commentId: 'c1', parentCommentId: null, actor: 'u1', body: 'body of c1', now: NOW }).then([posted(message('c1'))]);
      filing([created, posted(message('c1'))], { type: 'PostComment', commentId: 'c2', parentCommentId: 'c1', actor: 'u2', body: 'body of c2', now: NOW }).then([
        posted(message('c2', 'u2', 'c1', 'c1')),
      ]);
      filing([created], { type: 'PostComment', commentId: 'c2', parentCommentId: 'zz', actor: 'u2', body: 'x', now: NOW }).thenError('invalid_request');
    });

    it('comments: only the author edits; the author or a manager deletes (a tombstone, once); a deleted comment cannot be edited', () => {
      const given = [created, posted(message('c1'))];
      filing(given, { type: 'EditComment', commentId: 'c1', actor: 'u2', body: 'x', now: LATER }).thenError('forbidden', 403);
      filing(given, { type: 'EditComment', commentId: 'c1', actor: 'u1', body: 'new', now: LATER }).then([{ type: 'FilingCommentEdited', data: { filingId: F, commentId: 'c1', body: 'new', editedAt: LATER } }]);
      filing(given, { type: 'DeleteComment', commentId: 'c1', actor: 'u2', actorIsManager: false, now: LATER }).thenError('forbidden', 403);
      const deleted: ManagedFilingEvent = { type: 'FilingCommentDeleted', data: { filingId: F, commentId: 'c1', deletedAt: LATER, actor: 'u2' } };
      filing(given, { type: 'DeleteComment', commentId: 'c1', actor: 'u2', actorIsManager: true, now: LATER }).then([deleted]);
      filing([...given, deleted], { type: 'DeleteComment', commentId: 'c1', actor: 'u1', actorIsManager: false, now: LATER }).then([]);
      filing([...given, deleted], { type: 'EditComment', commentId: 'c1', actor: 'u1', body: 'x', now: LATER }).thenError('comment_deleted');
      const s = fold(managedFilingDecider, [...given, deleted] as never);
      assert.deepEqual([s.comments.c1.deleted, s.comments.c1.body], [true, '']);
    });

    it('threads: resolve and reopen append status_change entries; repeating the current status appends nothing', () => {
      const given = [created, posted(message('c1')), posted(message('c2', 'u2', 'c1', 'c1'))];
      const resolve = { type: 'ResolveThread' as const, commentId: 'c2', statusCommentId: 's1', actor: 'u1', now: LATER };
      const [ev] = filing(given, resolve).events();
      assert.equal(ev.type, 'FilingThreadResolved');
      assert.deepEqual(ev.data, {
        filingId: F,
        threadId: 'c1',
        comment: { id: 's1', threadId: 'c1', parentCommentId: 'c1', commentType: 'status_change', actor: 'u1', body: '', data: { status: 'resolved', previousStatus: 'open' }, deleted: false, editedAt: null, createdAt: LATER },
      });
      filing([...given, ev], resolve).then([]);
      filing([...given, ev], { ...resolve, type: 'ReopenThread', statusCommentId: 's2' }).events().forEach((e) => assert.equal(e.type, 'FilingThreadReopened'));
      filing(given, { ...resolve, type: 'ReopenThread' }).then([]);
      filing(given, { ...resolve, commentId: 'nope' }).thenError('not_found');
    });
  });

  describe('artifact', () => {
    const upload = { uploadId: 'up1', contentSha256: 'abc', size: 3, receivedAt: NOW };
    const received: ArtifactEvent = { type: 'ArtifactUploadReceived', data: { artifactId: 'a1', upload } };
    const complete = { type: 'CompleteUpload' as const, artifactId: 'a1', uploadId: 'up1', versionId: 'v1', scope: `mc:${S}`, scopeId: S, tenantId: 't1', name: 'a.txt', mimeType: 'text/plain', actor: 'u1', now: LATER };

    it('completion needs the bytes first (UPLOAD_NOT_FOUND)', () => {
      artifact([], complete).thenError('UPLOAD_NOT_FOUND');
    });

    it('the first completion creates the artifact with version 1; a replay adds version 2 of the same bytes', () => {
      const first = artifact([received], complete).events();
      assert.deepEqual(first.map((e) => e.type), ['ArtifactCreated', 'ArtifactVersionAdded']);
      const replay = artifact([received, ...first], { ...complete, versionId: 'v2' }).events();
      assert.deepEqual(replay.map((e) => e.type), ['ArtifactVersionAdded']);
      assert.equal((replay[0] as Extract<ArtifactEvent, { type: 'ArtifactVersionAdded' }>).data.version.versionNumber, 2);
      artifact([received, ...first], { ...complete, scopeId: 'other' }).thenError('PERMISSION_DENIED');
    });

    it('indexing is recorded once per version (at-least-once delivery is harmless)', () => {
      const first = artifact([received], complete).events();
      const text = { sha256: 't', byteLength: 1, pageCount: 1, pageStarts: [0], method: 'plain_text' };
      const indexed: ArtifactEvent = { type: 'ArtifactVersionIndexed', data: { artifactId: 'a1', versionId: 'v1', text, indexedAt: LATER } };
      artifact([received, ...first], { type: 'RecordIndexing', versionId: 'v1', text, now: LATER }).then([indexed]);
      artifact([received, ...first, indexed], { type: 'RecordIndexing', versionId: 'v1', text, now: LATER }).then([]);
      artifact([received, ...first], { type: 'RecordIndexing', versionId: 'nope', text, now: LATER }).thenError('not_found');
    });
  });

  describe('scope listing entry', () => {
    const entry = { kind: 'company' as const, id: 'c1', scope: 'mc:s', scopeId: 's', name: 'Acme', code: null };
    it('a re-import of the same entry appends nothing; a change appends; an entry never moves scope', () => {
      const ev = { type: 'ScopeListingEntryRecorded' as const, data: entry };
      listing([], { type: 'RecordEntry', entry }).then([ev]);
      listing([ev], { type: 'RecordEntry', entry }).then([]);
      listing([ev], { type: 'RecordEntry', entry: { ...entry, name: 'Acme Co' } }).then([{ type: 'ScopeListingEntryRecorded', data: { ...entry, name: 'Acme Co' } }]);
      listing([ev], { type: 'RecordEntry', entry: { ...entry, scopeId: 'other' } }).thenError('conflict');
    });
  });

  describe('TOI / sub-TOI table', () => {
    it('expands the contract\'s ranges exactly', () => {
      assert.equal(TOI_CODES.length, 37);
      assert.deepEqual(subToiCodesOf('21.4'), ['21.0004']);
      assert.equal(subToiCodesOf('17.0').length, 30);
      assert.equal(subToiCodesOf('17.0')[29], '17.0029');
      assert.deepEqual(subToiCodesOf('01.0'), ['01.0001', '01.0002']);
      assert.deepEqual(subToiCodesOf('28.2'), ['28.2001', '28.2002', '28.2003', '28.2004', '28.2005', '28.2006']);
      assert.equal(subToiCodesOf('11.1').length, 34);
      assert.equal([...SUB_TOI_CODES.values()].flat().length, new Set([...SUB_TOI_CODES.values()].flat()).size, 'no code belongs to two TOIs');
      assert.deepEqual(subToiCodesOf('99.0'), []);
    });
  });
});
