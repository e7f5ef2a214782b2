import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CommandHandler } from '../../../commands/command-handler';
import type { EventStore } from '../../../src/ports/event-store';
import { completeFields } from '../../../src/domain/filing-fields';
import { managedFilingDecider } from '../../../commands/managed-filings/managed-filing';
import type { ManagedFilingState } from '../../../src/domain/managed-filing-state';
import type { ManagedFilingEvent } from '../../../src/domain/events/managed-filings';
import { StreamStateCache } from '../../../commands/stream-state-cache';
import { ManagedFilingCommentsProjector } from '../../../projections/managed-filings/comments-projector';
import { ManagedFilingItemsProjector } from '../../../projections/managed-filings/items-projector';
import { ManagedFilingsProjector } from '../../../projections/managed-filings/managed-filings-projector';
import type { Projector } from '../../../projections/projector';
import { loadConfig } from '../../../src/config';
import type { RecordedEvent } from '../../../src/domain/events';
import { createLogger } from '../../../src/util/logger';
import { openRuntime, type Runtime } from '../../../src/runtime';
import { freshDatabaseUrl } from '../../support/postgres';

const NOW = '2025-01-01T00:00:00.000Z';
const fields = completeFields({
  companyId: crypto.randomUUID(),
  jurisdictionId: crypto.randomUUID(),
  primaryProductId: crypto.randomUUID(),
  filingType: 'form',
});

describe('working filings: the command path and batched projections', () => {
  let rt: Runtime;
  let handler: CommandHandler;
  before(async () => {
    const url = await freshDatabaseUrl();
    rt = await openRuntime(loadConfig({}, { databaseUrl: url, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-wf-cmd-')) }), createLogger('silent'));
    handler = rt.container.get(CommandHandler);
  });
  after(async () => rt.close());

  /**
   * The store as a command handler sees it, recording the first version of every stream read in `reads`;
   * with `beforeAppend`, every append runs it first (and guarded appends are off, so appends go through it).
   */
  function recordingReads(reads: (number | undefined)[], beforeAppend?: () => Promise<void>): EventStore {
    return new Proxy(rt.store, {
      get(target, prop, receiver) {
        if (prop === 'readStream') return (id: string, from?: number) => (reads.push(from), target.readStream(id, from));
        if (beforeAppend && prop === 'append') return async (...args: Parameters<typeof target.append>) => (await beforeAppend(), target.append(...args));
        if (beforeAppend && prop === 'appendGuarded') return undefined;
        return Reflect.get(target, prop, receiver);
      },
    });
  }

  /** A new filing with one item (stream version 2), both written through `handler` with `cache`. */
  async function filingWithItem(cache: StreamStateCache<ManagedFilingState>) {
    const filingId = await createFiling(cache);
    const stream = `managedFiling-${filingId}`;
    const itemId = crypto.randomUUID();
    const item = { id: itemId, artifactId: crypto.randomUUID(), artifactVersionId: 'v1', scheduleType: null, scheduleSeqNo: null, context: 'x', attachments: [] };
    await handler.execute(managedFilingDecider, stream, { type: 'AddItem', item, now: NOW }, { metadata: {}, cache });
    return { filingId, stream, itemId };
  }

  async function createFiling(cache: StreamStateCache<ManagedFilingState>) {
    const filingId = crypto.randomUUID();
    const scopeId = crypto.randomUUID();
    const cmd = { type: 'CreateFiling' as const, filingId, scope: `mc:${scopeId}`, scopeId, tenantId: 't1', fields, now: NOW, actor: 'u1' };
    await handler.execute(managedFilingDecider, `managedFiling-${filingId}`, cmd, { metadata: {}, cache, newStream: true });
    return filingId;
  }

  it('rule: a command decided on a cached state that another writer moved is re-decided on the stored stream (no 404, no conflict)', async () => {
    const cache = new StreamStateCache<ManagedFilingState>();
    const filingId = await createFiling(cache);
    const stream = `managedFiling-${filingId}`;
    assert.equal(cache.get(stream)?.version, 1);
    // Another process (or an import) adds an item: this process's cached state does not know it.
    const item = { id: crypto.randomUUID(), filingId, artifactId: crypto.randomUUID(), artifactVersionId: 'v1', scheduleType: null, scheduleSeqNo: null, context: null, attachments: [], createdAt: NOW, updatedAt: NOW };
    await rt.store.append(stream, [{ type: 'ManagedFilingItemAdded', data: { filingId, item } }], 1, {});
    const patched = await handler.execute(managedFilingDecider, stream, { type: 'PatchItem', itemId: item.id, changes: { context: 'after the import' }, now: NOW }, { metadata: {}, cache });
    assert.equal(patched.version, 3);
    assert.equal(patched.state.items[item.id].context, 'after the import');
    // A stale cached state whose decision succeeds meets a version conflict; the re-read is not a retry.
    await rt.store.append(stream, [{ type: 'ManagedFilingUpdated', data: { filingId, changes: { description: 'elsewhere' }, updatedAt: NOW } }], 3, {});
    const updated = await handler.execute(managedFilingDecider, stream, { type: 'UpdateFiling', changes: { serffTrackingNumber: 'ABCD-123' }, now: NOW }, { metadata: {}, cache, retries: 0 });
    assert.equal(updated.version, 5);
    assert.equal(updated.state.fields?.description, 'elsewhere');
    assert.deepEqual(cache.get(stream)?.state, updated.state);
  });

  it('rule: a version conflict reads only the events appended since the state decided on, never the whole stream again (cached or loaded), and re-decides on the stored state', async () => {
    const cache = new StreamStateCache<ManagedFilingState>();
    const { filingId, stream, itemId } = await filingWithItem(cache);
    for (let i = 0; i < 20; i++) await handler.execute(managedFilingDecider, stream, { type: 'PatchItem', itemId, changes: { context: `r${i}` }, now: NOW }, { metadata: {}, cache });
    assert.equal(cache.get(stream)?.version, 22);
    // The store as the handler sees it: every read is recorded, and the first append of a command is raced
    // by another writer that patches the same item just before it.
    const reads: (number | undefined)[] = [];
    let race = true;
    const racer = async () => {
      if (!race) return;
      race = false;
      const v = (await rt.store.readStream(stream)).length;
      await rt.store.append(stream, [{ type: 'ManagedFilingItemChanged', data: { filingId, itemId, changes: { scheduleType: 'form', scheduleSeqNo: 7 }, updatedAt: NOW } }], v, {});
    };
    const store = recordingReads(reads, racer);
    const racing = new CommandHandler(store, null, createLogger('silent'));
    // Decided on the cached state (version 22): the racer moves the stream to 23, the append conflicts.
    const cached = await racing.execute(managedFilingDecider, stream, { type: 'PatchItem', itemId, changes: { context: 'cached' }, now: NOW }, { metadata: {}, cache, retries: 0 });
    assert.deepEqual(reads, [23], 'only the racing event is read');
    assert.equal(cached.version, 24);
    assert.equal(cached.state.items[itemId].scheduleSeqNo, 7, 're-decided on the racing writer\'s state');
    assert.equal(cached.state.items[itemId].context, 'cached');
    // Without a cache the first read is the whole stream; the conflict after it reads only what the racer added.
    reads.length = 0;
    race = true;
    const loaded = await racing.execute(managedFilingDecider, stream, { type: 'PatchItem', itemId, changes: { context: 'loaded' }, now: NOW }, { metadata: {}, retries: 1 });
    assert.deepEqual(reads, [undefined, 25]);
    assert.equal(loaded.version, 26);
    assert.deepEqual(loaded.state, (await handler.load(managedFilingDecider, stream)).state);
  });

  it('rule: a no-op or a refusal decided on a cached state is checked against the stored stream by reading only what follows the cached version', async () => {
    const cache = new StreamStateCache<ManagedFilingState>();
    const filingId = await createFiling(cache);
    const stream = `managedFiling-${filingId}`;
    await handler.execute(managedFilingDecider, stream, { type: 'UpdateFiling', changes: { serffTrackingNumber: 'AAAA-1' }, now: NOW }, { metadata: {}, cache });
    const reads: (number | undefined)[] = [];
    const store = recordingReads(reads);
    const reading = new CommandHandler(store, null, createLogger('silent'));
    const same = { type: 'UpdateFiling' as const, changes: { serffTrackingNumber: 'AAAA-1' }, now: NOW };
    const noop = await reading.execute(managedFilingDecider, stream, same, { metadata: {}, cache });
    assert.equal(noop.events.length, 0);
    assert.equal(noop.version, 2);
    assert.deepEqual(reads, [3], 'the cached state is current: nothing follows it');
    // Another writer changes the number: the same write is then a change, decided on the stored state.
    await rt.store.append(stream, [{ type: 'ManagedFilingUpdated', data: { filingId, changes: { serffTrackingNumber: 'BBBB-2' }, updatedAt: NOW } }], 2, {});
    reads.length = 0;
    const change = await reading.execute(managedFilingDecider, stream, same, { metadata: {}, cache });
    assert.equal(change.events.length, 1);
    assert.equal(change.version, 4);
    assert.deepEqual(reads, [3], 'the conflict read only the other writer\'s event');
    reads.length = 0;
    await assert.rejects(reading.execute(managedFilingDecider, stream, { type: 'PatchItem', itemId: crypto.randomUUID(), changes: { context: 'x' }, now: NOW }, { metadata: {}, cache }), /not/i);
    assert.deepEqual(reads, [5], 'a refusal on the cached state reads only what follows it');
  });

  it('rule: concurrent writers of one stream in one process re-decide after a conflict without reading the whole stream, and every write lands', async () => {
    const cache = new StreamStateCache<ManagedFilingState>();
    const { stream, itemId } = await filingWithItem(cache);
    const reads: (number | undefined)[] = [];
    const store = recordingReads(reads);
    const reading = new CommandHandler(store, null, createLogger('silent'));
    const writes = Array.from({ length: 12 }, (_, i) =>
      reading.execute(managedFilingDecider, stream, { type: 'PatchItem', itemId, changes: { context: `w${i}` }, now: NOW }, { metadata: {}, cache, retries: 50 }),
    );
    const results = await Promise.all(writes);
    assert.deepEqual(results.map((r) => r.version).sort((a, b) => a - b), Array.from({ length: 12 }, (_, i) => i + 3));
    assert.ok(reads.length > 0, 'the writers raced (a conflict was caught up)');
    assert.ok(!reads.includes(undefined) && !reads.includes(1), `no whole-stream read: ${JSON.stringify(reads)}`);
    assert.deepEqual(cache.get(stream)?.state, (await handler.load(managedFilingDecider, stream)).state);
  });

  it('rule: the cached state equals the state folded from the stored stream', async () => {
    const cache = new StreamStateCache<ManagedFilingState>();
    const filingId = await createFiling(cache);
    const stream = `managedFiling-${filingId}`;
    const itemId = crypto.randomUUID();
    const item = { id: itemId, artifactId: crypto.randomUUID(), artifactVersionId: 'v1', scheduleType: 'form' as const, scheduleSeqNo: 3, context: 'x', attachments: [] };
    await handler.execute(managedFilingDecider, stream, { type: 'AddItem', item, now: NOW }, { metadata: {}, cache });
    await handler.execute(managedFilingDecider, stream, { type: 'PatchItem', itemId, changes: { scheduleType: null, scheduleSeqNo: null, context: undefined }, now: NOW }, { metadata: {}, cache });
    assert.deepEqual(cache.get(stream)?.state, (await handler.load(managedFilingDecider, stream)).state);
  });

  it('rule: a guard is checked inside the append; a refusal whose own check passes (the look-up changed in between) still appends once', async () => {
    const cache = new StreamStateCache<ManagedFilingState>();
    const filingId = await createFiling(cache);
    const stream = `managedFiling-${filingId}`;
    let checks = 0;
    const guard = (allowed: boolean) => ({
      append: { sql: `select $1::boolean as ok, 'editor' as role`, values: [allowed] },
      fromRow: (row: Record<string, unknown>) => ({ role: String(row.role), from: 'append' }),
      check: async () => {
        checks++;
        return { role: 'editor', from: 'check' };
      },
    });
    const cmd = { type: 'UpdateFiling' as const, changes: { description: 'guarded' }, now: NOW };
    const ok = await handler.execute(managedFilingDecider, stream, cmd, { metadata: {}, cache, guard: guard(true) });
    assert.deepEqual([ok.version, ok.guard, checks], [2, { role: 'editor', from: 'append' }, 0]);
    const refusedThenAllowed = await handler.execute(managedFilingDecider, stream, { ...cmd, changes: { description: 'again' } }, { metadata: {}, cache, guard: guard(false) });
    assert.deepEqual([refusedThenAllowed.version, refusedThenAllowed.guard, checks], [3, { role: 'editor', from: 'check' }, 1]);
    const denied = { ...guard(false), check: async () => Promise.reject(new Error('403 from the check')) };
    await assert.rejects(handler.execute(managedFilingDecider, stream, { ...cmd, changes: { description: 'never' } }, { metadata: {}, cache, guard: denied }), /403 from the check/);
    assert.equal((await handler.load(managedFilingDecider, stream)).version, 3);
  });

  it('rule: with a store that cannot check a guard in the append (EventStoreDB), the guard is checked first, once', async () => {
    const store = Object.create(rt.store, { appendGuarded: { value: undefined } });
    const plain = new CommandHandler(store, null, createLogger('silent'));
    const order: string[] = [];
    const appended = store.append.bind(store);
    store.append = async (...args: Parameters<typeof appended>) => {
      order.push('append');
      return appended(...args);
    };
    const filingId = crypto.randomUUID();
    const scopeId = crypto.randomUUID();
    const r = await plain.execute(
      managedFilingDecider,
      `managedFiling-${filingId}`,
      { type: 'CreateFiling', filingId, scope: `mc:${scopeId}`, scopeId, tenantId: 't1', fields, now: NOW, actor: 'u1' },
      {
        metadata: {},
        newStream: true,
        guard: {
          append: { sql: 'select false as ok', values: [] },
          fromRow: () => 'from the append',
          check: async () => {
            order.push('check');
            return 'from the check';
          },
        },
      },
    );
    assert.deepEqual([r.version, r.guard, order], [1, 'from the check', ['check', 'append']]);
  });

  /** The events as the store would hand them out: one stream, versions from 1. */
  const recorded = (events: ManagedFilingEvent[]) =>
    events.map((e, i) => ({ ...e, streamId: 'managedFiling-x', version: i + 1, eventId: crypto.randomUUID(), schemaVersion: 1, metadata: {}, recordedAt: new Date(), position: { commit: 1n, prepare: BigInt(i + 1) } })) as unknown as RecordedEvent[];

  /** Applies batches to fresh tables of one projector; returns the rows of `table`. */
  async function project(p: Projector, batches: RecordedEvent[][], table: string, orderBy = 'id') {
    const suffix = `__t${crypto.randomBytes(3).toString('hex')}`;
    const t = (name: string) => name + suffix;
    await rt.db.knex.transaction((trx) => p.createSchema(trx, t));
    for (const batch of batches) await rt.db.knex.transaction((trx) => p.apply({ trx, table: t }, batch));
    const rows = await rt.db.knex(t(table)).select('*').orderBy(orderBy);
    for (const tab of p.tables) await rt.db.knex.raw(`drop table ?? cascade`, [t(tab)]);
    return rows;
  }

  it('rule: a batch of item events in few statements gives what one event at a time gives, and a replay changes nothing', async () => {
    const f = crypto.randomUUID();
    const [a, b] = [crypto.randomUUID(), crypto.randomUUID()].sort();
    const added = (id: string): ManagedFilingEvent => ({
      type: 'ManagedFilingItemAdded',
      data: { filingId: f, item: { id, filingId: f, artifactId: f, artifactVersionId: 'v1', scheduleType: 'rate', scheduleSeqNo: 1, context: 'c0', attachments: [], createdAt: NOW, updatedAt: NOW } },
    });
    const changed = (id: string, changes: Record<string, unknown>, at: string): ManagedFilingEvent => ({ type: 'ManagedFilingItemChanged', data: { filingId: f, itemId: id, changes, updatedAt: at } });
    const events = [
      added(a),
      changed(a, { context: 'c1' }, '2025-01-02T00:00:00.000Z'),
      added(b),
      changed(a, { scheduleType: null, scheduleSeqNo: null }, '2025-01-03T00:00:00.000Z'),
      changed(b, { attachments: [{ artifactId: f, artifactVersionId: 'v2', artifactName: 'n', artifactVersionNumber: 2 }], artifactVersionId: 'v2' }, '2025-01-04T00:00:00.000Z'),
      changed(a, { context: 'c2' }, '2025-01-05T00:00:00.000Z'),
    ];
    const p = new ManagedFilingItemsProjector();
    const all = recorded(events);
    const single = await project(p, all.map((e) => [e]), 'managed_filing_items');
    // The whole batch, then a replay of it and of an older part: nothing moves backwards.
    const batched = await project(p, [all, all, all.slice(0, 3)], 'managed_filing_items');
    assert.deepEqual(batched, single);
    assert.equal(batched[a < b ? 0 : 1].context, 'c2');
    assert.equal(batched[a < b ? 0 : 1].schedule_type, null);
    assert.equal(batched[a < b ? 1 : 0].artifact_version_id, 'v2');
  });

  it('rule: batched filing and comment projections keep every row and each thread\'s last status', async () => {
    const f = crypto.randomUUID();
    const scopeId = crypto.randomUUID();
    const comment = (id: string, thread: string, parent: string | null) => ({ id, threadId: thread, parentCommentId: parent, commentType: 'message' as const, actor: 'u1', body: `b ${id}`, data: {}, deleted: false, editedAt: null, createdAt: NOW });
    const t1 = crypto.randomUUID();
    const reply = crypto.randomUUID();
    const events: ManagedFilingEvent[] = [
      { type: 'ManagedFilingCreated', data: { filingId: f, scope: `mc:${scopeId}`, scopeId, tenantId: 't1', filingMode: 'managed', fields, createdAt: NOW, createdBy: 'u1' } },
      { type: 'FilingCommentPosted', data: { filingId: f, comment: comment(t1, t1, null) } },
      { type: 'FilingCommentPosted', data: { filingId: f, comment: comment(reply, t1, t1) } },
      { type: 'FilingThreadResolved', data: { filingId: f, threadId: t1, comment: { ...comment(crypto.randomUUID(), t1, t1), commentType: 'status_change', data: { status: 'resolved' } } } },
      { type: 'FilingCommentEdited', data: { filingId: f, commentId: reply, body: 'edited', editedAt: NOW } },
      { type: 'FilingThreadReopened', data: { filingId: f, threadId: t1, comment: { ...comment(crypto.randomUUID(), t1, t1), commentType: 'status_change', data: { status: 'open' } } } },
      { type: 'FilingThreadResolved', data: { filingId: f, threadId: t1, comment: { ...comment(crypto.randomUUID(), t1, t1), commentType: 'status_change', data: { status: 'resolved' } } } },
      { type: 'FilingCommentDeleted', data: { filingId: f, commentId: t1, deletedAt: NOW, actor: 'u1' } },
    ];
    const c = new ManagedFilingCommentsProjector();
    const all = recorded(events);
    assert.deepEqual(await project(c, [all], 'managed_filing_comments'), await project(c, all.map((e) => [e]), 'managed_filing_comments'));
    const threads = await project(c, [all, all.slice(0, 4), all], 'managed_filing_threads', 'thread_id');
    assert.deepEqual(
      threads.map((r) => r.status),
      ['resolved'],
    );
    const filings = await project(new ManagedFilingsProjector(), [all], 'managed_filings');
    assert.equal(filings.length, 1);
    assert.equal(filings[0].id, f);
  });
});
