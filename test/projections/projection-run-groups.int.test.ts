import assert from 'node:assert/strict';
import { ProjectionEngine, type GroupedProjector } from '../../projections/engine';
import { eventTypesOf, type ProjectionContext } from '../../projections/projector';
import type { RecordedEvent } from '../../src/domain/events';
import { createLogger } from '../../src/util/logger';
import type { Runtime } from '../../src/runtime';
import { StreamCountingProjector, runtimeWithProjectors } from '../support/stream-counting-projector';

/** Adds one per event and stream (a replay would show), for the event types it is given; may be told to fail. */
class GroupCounter extends StreamCountingProjector implements GroupedProjector {
  constructor(name: string, eventTypes: readonly string[]) {
    super(name, eventTypes, 'test-group');
  }

  async apply({ trx, table }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    if (this.failures > 0) {
      this.failures--;
      // Written first, so a batch that is not rolled back as a whole would keep it.
      await trx.raw(`insert into ${table(this.tables[0])} (stream_id, n) values ('poison', 1)`);
      throw new Error('told to fail');
    }
    for (const e of events)
      await trx.raw(`insert into ${table(this.tables[0])} as c (stream_id, n) values (?, 1) on conflict (stream_id) do update set n = c.n + 1`, [e.streamId]);
  }
}

describe('projection engine: run groups', () => {
  let rt: Runtime;
  let filings: GroupCounter;
  let history: GroupCounter;
  beforeEach(async () => {
    filings = new GroupCounter('test-group-filings', ['GroupCreated']);
    history = new GroupCounter('test-group-history', ['GroupCreated', 'GroupNoted']);
    rt = await runtimeWithProjectors([filings, history], 'ifrs-groups-');
  });
  afterEach(async () => rt.close());

  const counts = async (p: GroupCounter) =>
    Object.fromEntries((await rt.db.knex(p.tables[0]).select('stream_id', 'n').orderBy('stream_id')).map((r) => [r.stream_id, Number(r.n)]));
  const checkpoints = async () => rt.db.knex('projection_checkpoints').whereIn('name', [filings.name, history.name]).orderBy('name').select('name', 'prepare_position', 'updated_at');

  it('rule: a write waiting on several members of a group is released by one batch that moved them all in one transaction', async () => {
    await rt.engine.start();
    const writes = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const r = await rt.store.append(`grouped-${i}`, [{ type: 'GroupCreated', data: {} }, { type: 'GroupNoted', data: {} }], 0, {});
        await rt.engine.waitFor([filings.name, history.name], r.position, 10_000);
        const [f, h] = await Promise.all([counts(filings), counts(history)]);
        return [f[`grouped-${i}`], h[`grouped-${i}`]];
      }),
    );
    assert.deepEqual(writes, Array(30).fill([1, 2]));
    const [a, b] = await checkpoints();
    assert.equal(a.prepare_position, b.prepare_position);
    // now() is the transaction's start: equal times mean the last batch moved both in one transaction.
    assert.equal(a.updated_at.getTime(), b.updated_at.getTime());
  });

  it('rule: catchUp of several members of a group applies each batch to all of them in one transaction (an import waited on from the CLI)', async () => {
    for (let i = 0; i < 25; i++) await rt.store.append(`caught-${i}`, [{ type: 'GroupCreated', data: {} }, { type: 'GroupNoted', data: {} }], 0, {});
    // Each applied event counted once per member: 25 for filings (GroupCreated), 50 for history.
    assert.equal(await rt.engine.catchUp([filings.name, history.name]), 75);
    const expectedFilings = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`caught-${i}`, 1]));
    assert.deepEqual(await counts(filings), expectedFilings);
    assert.deepEqual(await counts(history), Object.fromEntries(Object.keys(expectedFilings).map((k) => [k, 2])));
    const [a, b] = await checkpoints();
    assert.equal(a.prepare_position, b.prepare_position);
    // now() is the transaction's start: equal times mean one transaction moved both.
    assert.equal(a.updated_at.getTime(), b.updated_at.getTime());
    assert.equal(await rt.engine.catchUp([filings.name, history.name]), 0);
  });

  it('rule: a member ahead of the others (caught up on its own) gets no event twice', async () => {
    for (let i = 0; i < 5; i++) await rt.store.append(`early-${i}`, [{ type: 'GroupCreated', data: {} }], 0, {});
    await rt.engine.catchUp([filings.name]);
    await rt.engine.start();
    const r = await rt.store.append('late', [{ type: 'GroupCreated', data: {} }], 0, {});
    await rt.engine.waitFor([filings.name, history.name], r.position, 10_000);
    const expected = { 'early-0': 1, 'early-1': 1, 'early-2': 1, 'early-3': 1, 'early-4': 1, late: 1 };
    assert.deepEqual(await counts(filings), expected);
    assert.deepEqual(await counts(history), expected);
  });

  it('rule: a member that fails rolls back the whole group batch; the retry applies every event once', async () => {
    history.failures = 1;
    await rt.engine.start();
    const r = await rt.store.append('failing', [{ type: 'GroupCreated', data: {} }], 0, {});
    await rt.engine.waitFor([filings.name, history.name], r.position, 10_000);
    assert.deepEqual(await counts(filings), { failing: 1 });
    assert.deepEqual(await counts(history), { failing: 1 });
  });

  it('rule: two runners of one group (two processes) apply every event exactly once', async function () {
    this.timeout(60_000);
    const other = new ProjectionEngine(rt.db.knex, rt.store, [new GroupCounter(filings.name, eventTypesOf(filings)), new GroupCounter(history.name, eventTypesOf(history))], createLogger('silent'), 7);
    await Promise.all([rt.engine.start(), other.start()]);
    try {
      const positions = await Promise.all(
        Array.from({ length: 60 }, async (_, i) => (await rt.store.append(`raced-${i % 20}`, [{ type: 'GroupCreated', data: {} }], 'any', {})).position),
      );
      const last = positions.reduce((a, b) => (a.commit > b.commit || (a.commit === b.commit && a.prepare > b.prepare) ? a : b));
      await Promise.all([rt.engine.waitFor([filings.name, history.name], last, 20_000), other.waitFor([filings.name, history.name], last, 20_000)]);
    } finally {
      await other.stop();
    }
    const expected = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`raced-${i}`, 3]));
    assert.deepEqual(await counts(filings), expected);
    assert.deepEqual(await counts(history), expected);
  });

  it('rule: checkpoints move over ranges that hold none of their events (lag 0), applying nothing', async () => {
    const before = await rt.store.append('foreign', [{ type: 'SomethingElse', data: {} }], 0, {});
    await rt.engine.start();
    await rt.engine.waitFor([filings.name, history.name], before.position, 10_000);
    for (let i = 1; i <= 5; i++) await rt.store.append('foreign', [{ type: 'SomethingElse', data: {} }], i, {});
    const deadline = Date.now() + 10_000;
    const lagOf = async () => (await rt.engine.status()).projections.filter((p) => p.name.startsWith('test-group') || p.name === 'identity').map((p) => p.lag);
    let lags = await lagOf();
    while (lags.some((l) => l > 0) && Date.now() < deadline) {
      rt.engine.poke();
      await new Promise((r) => setTimeout(r, 100));
      lags = await lagOf();
    }
    assert.deepEqual(lags, [0, 0, 0]);
    assert.deepEqual(await counts(filings), {});
    assert.deepEqual(await counts(history), {});
  });
});
