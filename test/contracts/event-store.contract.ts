import assert from 'node:assert/strict';
import type { EventStore } from '../../src/ports/event-store';
import { ExpectedVersionConflict } from '../../src/domain/errors';
import { START, comparePositions, type LogPosition, type RecordedEvent } from '../../src/domain/events';

export interface EventStoreFixture {
  store: EventStore;
  /** Runs fn inside a transaction that appends, then stays open until `release` resolves (adapters with transactions). */
  slowAppend?(streamId: string, release: Promise<void>): Promise<void>;
  close(): Promise<void>;
}

/** Reads the whole log from a position the way a subscriber does, until nothing more is visible. */
/**
 * Reads the log to its visible end. With `until`, keeps reading until that position is visible: the
 * horizon stays below any transaction still running anywhere in the cluster (another test's, another
 * database's), and a reader waits for it rather than skip what it may yet commit.
 */
async function readToEnd(store: EventStore, after: LogPosition, types?: string[], until?: LogPosition): Promise<{ events: RecordedEvent[]; horizon: LogPosition }> {
  const events: RecordedEvent[] = [];
  let pos = after;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const r = await store.readAll({ after: pos, limit: 50, types });
    events.push(...r.events);
    if (comparePositions(r.horizon, pos) <= 0) {
      if (!until || comparePositions(pos, until) >= 0 || Date.now() > deadline) return { events, horizon: pos };
      await new Promise((res) => setTimeout(res, 20));
      continue;
    }
    pos = r.horizon;
  }
}

/** One suite, run for every EventStore adapter (Postgres always; EventStoreDB when ESDB_URL is set). */
export function eventStoreContract(name: string, makeFixture: () => Promise<EventStoreFixture>): void {
  describe(`EventStore contract: ${name}`, () => {
    let fx: EventStoreFixture;
    const uniq = () => Math.random().toString(36).slice(2, 10);
    beforeEach(async () => {
      fx = await makeFixture();
    });
    afterEach(async () => {
      await fx.close();
    });

    it('appends to a new stream with expected version 0 and reads it back in order with metadata', async () => {
      const s = `test-${uniq()}`;
      const r = await fx.store.append(s, [{ type: 'A', data: { n: 1 } }, { type: 'B', data: { n: 2 } }], 0, { actor: 'me', requestId: 'r1' });
      assert.equal(r.nextVersion, 2);
      const events = await fx.store.readStream(s);
      assert.deepEqual(events.map((e) => [e.type, e.version, (e.data as { n: number }).n]), [['A', 1, 1], ['B', 2, 2]]);
      assert.equal(events[0].metadata.actor, 'me');
      assert.equal(events[0].schemaVersion, 1);
      assert.ok(events[0].recordedAt instanceof Date);
      assert.ok(comparePositions(events[0].position, events[1].position) < 0);
    });

    it('rejects an append with a stale expected version as ExpectedVersionConflict and writes nothing', async () => {
      const s = `test-${uniq()}`;
      await fx.store.append(s, [{ type: 'A', data: {} }], 0, {});
      await assert.rejects(fx.store.append(s, [{ type: 'B', data: {} }], 0, {}), ExpectedVersionConflict);
      await assert.rejects(fx.store.append(s, [{ type: 'B', data: {} }], 5, {}), ExpectedVersionConflict);
      assert.equal((await fx.store.readStream(s)).length, 1);
      const r = await fx.store.append(s, [{ type: 'C', data: {} }], 1, {});
      assert.equal(r.nextVersion, 2);
    });

    it('lets exactly one of many concurrent writers with the same expected version win', async () => {
      const s = `test-${uniq()}`;
      await fx.store.append(s, [{ type: 'A', data: {} }], 0, {});
      const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => fx.store.append(s, [{ type: 'W', data: { i } }], 1, {})));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      assert.ok(results.filter((r) => r.status === 'rejected').every((r) => (r as PromiseRejectedResult).reason instanceof ExpectedVersionConflict));
      assert.equal((await fx.store.readStream(s)).length, 2);
    });

    it("expected version 'any' appends whatever the stream's version", async () => {
      const s = `test-${uniq()}`;
      await fx.store.append(s, [{ type: 'A', data: {} }], 'any', {});
      await fx.store.append(s, [{ type: 'B', data: {} }], 'any', {});
      assert.deepEqual((await fx.store.readStream(s)).map((e) => e.version), [1, 2]);
    });

    it('numbers several events on from the expected version, and from the current one with \'any\', keeping schema versions and metadata', async () => {
      const s = `test-${uniq()}`;
      await fx.store.append(s, [{ type: 'A', data: {} }], 0, {});
      const r = await fx.store.append(s, [{ type: 'B', data: { i: 1 }, schemaVersion: 2 }, { type: 'C', data: { i: 2 } }], 1, { actor: 'exact' });
      assert.equal(r.nextVersion, 3);
      await assert.rejects(fx.store.append(s, [{ type: 'X', data: {} }, { type: 'Y', data: {} }], 1, {}), ExpectedVersionConflict);
      const any = await fx.store.append(s, [{ type: 'D', data: {} }, { type: 'E', data: {} }], 'any', { actor: 'any' });
      assert.equal(any.nextVersion, 5);
      const events = await fx.store.readStream(s);
      assert.deepEqual(events.map((e) => [e.type, e.version, e.schemaVersion, e.metadata.actor ?? null]), [
        ['A', 1, 1, null],
        ['B', 2, 2, 'exact'],
        ['C', 3, 1, 'exact'],
        ['D', 4, 1, 'any'],
        ['E', 5, 1, 'any'],
      ]);
      assert.equal(comparePositions(events[4].position, any.position), 0, 'the append returns its last event\'s position');
    });

    it('reads the global log after a position, filtered by type, with a horizon past skipped events', async () => {
      const start = await fx.store.head();
      const s = `test-${uniq()}`;
      const appended = await fx.store.append(s, [{ type: 'Keep', data: { i: 1 } }, { type: 'Skip', data: {} }, { type: 'Keep', data: { i: 2 } }], 0, {});
      const all = await readToEnd(fx.store, start, undefined, appended.position);
      assert.deepEqual(all.events.filter((e) => e.streamId === s).map((e) => e.type), ['Keep', 'Skip', 'Keep']);
      const kept = await readToEnd(fx.store, start, ['Keep'], appended.position);
      assert.deepEqual(kept.events.filter((e) => e.streamId === s).map((e) => (e.data as { i: number }).i), [1, 2]);
      assert.equal(comparePositions(kept.horizon, all.horizon), 0, 'the filtered reader moves as far as the unfiltered one');
      const head = await fx.store.head();
      assert.equal(comparePositions(head, all.horizon), 0);
    });

    it('counts the events between two positions, capped (projection lag), when the adapter can', async function () {
      if (!fx.store.countBetween) this.skip();
      const before = await fx.store.head();
      const s = `test-${uniq()}`;
      // The append's own position, not head(): head stays below transactions still running elsewhere.
      const { position: head } = await fx.store.append(s, [{ type: 'A', data: {} }, { type: 'B', data: {} }, { type: 'C', data: {} }], 0, {});
      const [first] = await fx.store.readStream(s);
      assert.equal(await fx.store.countBetween!(before, head, 100), 3);
      assert.equal(await fx.store.countBetween!(first.position, head, 100), 2);
      assert.equal(await fx.store.countBetween!(before, head, 2), 2, 'capped');
      assert.equal(await fx.store.countBetween!(head, head, 100), 0);
    });

    it('never lets a subscriber skip an event whose transaction commits after a later one became visible', async function () {
      if (!fx.slowAppend) this.skip();
      const before = await fx.store.head();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const slow = fx.slowAppend!(`slow-${uniq()}`, gate);
      await new Promise((r) => setTimeout(r, 100)); // the slow transaction has drawn its position
      await fx.store.append(`fast-${uniq()}`, [{ type: 'Fast', data: {} }], 0, {});
      // The subscriber must not move past the slow transaction's position while it is open.
      const early = await readToEnd(fx.store, before);
      assert.equal(early.events.filter((e) => e.type === 'Slow').length, 0);
      release();
      await slow;
      const late = await readToEnd(fx.store, early.horizon);
      assert.equal(late.events.filter((e) => e.type === 'Slow').length, 1, 'the slow event is delivered after it commits');
      const all = [...early.events, ...late.events];
      assert.equal(all.filter((e) => e.type === 'Fast').length, 1, 'and the fast one exactly once');
    });

    it('regression (import --wait returned before its events were projected): lastCommitted covers one\'s own appends while head() may lag', async function () {
      if (!fx.slowAppend) this.skip();
      let release!: () => void;
      const gate = new Promise<void>((r) => (release = r));
      const slow = fx.slowAppend!(`slow-${uniq()}`, gate);
      await new Promise((r) => setTimeout(r, 100));
      const mine = await fx.store.append(`fast-${uniq()}`, [{ type: 'Fast', data: {} }], 0, {});
      // An older transaction is still open: subscribers cannot see the fast append yet, but it is committed.
      assert.ok(comparePositions(await fx.store.head(), mine.position) < 0, 'head() is held back by the open transaction');
      assert.ok(comparePositions(await fx.store.lastCommitted(), mine.position) >= 0, 'lastCommitted() includes the committed append');
      release();
      await slow;
      assert.ok(comparePositions(await fx.store.head(), mine.position) >= 0);
    });

    it('wakes subscribers (onAppended) soon after another writer appends', async () => {
      let calls = 0;
      const unsubscribe = await fx.store.onAppended(() => calls++);
      try {
        await fx.store.append(`wake-${uniq()}`, [{ type: 'Wake', data: {} }], 0, {});
        const deadline = Date.now() + 2000;
        while (calls === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
        assert.ok(calls > 0, 'a subscriber was woken within 2 s');
      } finally {
        await unsubscribe();
      }
    });

    it('delivers every event exactly once, in global order, under many concurrent writers with random delays', async function () {
      this.timeout(120_000);
      const before = await fx.store.head();
      const seen: RecordedEvent[] = [];
      let pos = before;
      // Set once every writer is done: the subscriber stops when it has reached the last committed event.
      // Not at its first read that finds nothing new after the writers stop: a transaction elsewhere on the
      // server (another test's, a background runner's) can hold the horizon back for a moment even then.
      let until: LogPosition | null = null;
      const subscriber = (async () => {
        for (;;) {
          const r = await fx.store.readAll({ after: pos, limit: 100 });
          seen.push(...r.events);
          const moved = comparePositions(r.horizon, pos) > 0;
          pos = r.horizon;
          if (!moved) {
            if (until && comparePositions(pos, until) >= 0) return;
            await new Promise((res) => setTimeout(res, 5));
          }
        }
      })();
      const writers = 16;
      const perWriter = 25;
      const tag = uniq();
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          for (let i = 0; i < perWriter; i++) {
            if (fx.slowAppend && Math.random() < 0.1) {
              await fx.slowAppend(`conc-${tag}-${w}-${i}`, new Promise((r) => setTimeout(r, Math.random() * 30)));
            } else {
              await fx.store.append(`conc-${tag}-${w}-${i}`, [{ type: 'Conc', data: { w, i } }, { type: 'Conc', data: { w, i, second: true } }], 0, {});
            }
            if (Math.random() < 0.3) await new Promise((r) => setTimeout(r, Math.random() * 5));
          }
        }),
      );
      until = await fx.store.lastCommitted();
      await subscriber;
      const mine = seen.filter((e) => e.streamId.startsWith(`conc-${tag}-`));
      const ids = new Set(mine.map((e) => e.eventId));
      assert.equal(ids.size, mine.length, 'no event twice');
      const expected = writers * perWriter * 2 - 0;
      const slowCount = mine.filter((e) => e.type === 'Slow').length;
      assert.equal(mine.length, expected - slowCount + slowCount, 'every event');
      assert.equal(new Set(mine.map((e) => e.streamId)).size, writers * perWriter, 'every stream');
      for (let i = 1; i < seen.length; i++) assert.ok(comparePositions(seen[i - 1].position, seen[i].position) < 0, 'global order');
      assert.ok(comparePositions(pos, START) > 0);
    });
  });
}
