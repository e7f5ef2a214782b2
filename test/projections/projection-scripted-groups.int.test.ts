import assert from 'node:assert/strict';
import { ProjectionEngine, type ScriptedProjector } from '../../projections/engine';
import { runStatements } from '../../projections/batch-script';
import type { SqlStatement } from '../../projections/batch-sql';
import { eventTypesOf, type ProjectionContext, TableNamer } from '../../projections/projector';
import { comparePositions, type LogPosition, type RecordedEvent } from '../../src/domain/events';
import { createLogger } from '../../src/util/logger';
import type { Runtime } from '../../src/runtime';
import { StreamCountingProjector, runtimeWithProjectors } from '../support/stream-counting-projector';

/**
 * Adds one per event and stream (a replay would show) through statements, so its run group's batches
 * travel as one multi-statement query; counts how the engine called it; may be told to fail.
 */
class ScriptedCounter extends StreamCountingProjector implements ScriptedProjector {
  applies = 0;
  scripts = 0;
  constructor(name: string, eventTypes: readonly string[]) {
    super(name, eventTypes, 'test-scripted');
  }

  async apply({ trx, table }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    this.applies++;
    await runStatements(trx, this.statements(events, table));
  }

  batchStatements(events: RecordedEvent[], table: TableNamer): SqlStatement[] {
    this.scripts++;
    return this.statements(events, table);
  }

  private statements(events: RecordedEvent[], table: TableNamer): SqlStatement[] {
    const out: SqlStatement[] = events.map((e) => ({
      text: `insert into ${table(this.tables[0])} as c (stream_id, n) values ($1, 1) on conflict (stream_id) do update set n = c.n + 1`,
      values: [e.streamId],
    }));
    if (this.failures > 0) {
      this.failures--;
      // After the batch's writes, so a batch that is not rolled back as a whole would keep them.
      out.push({ text: `insert into ${table(this.tables[0])} (stream_id, n) values ('poison', 1)`, values: [] }, { text: `select 1 / $1`, values: [0] });
    }
    return out;
  }
}

const latest = (positions: LogPosition[]) => positions.reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));

describe('projection engine: run groups in one round trip per batch', () => {
  let rt: Runtime;
  let filings: ScriptedCounter;
  let history: ScriptedCounter;
  beforeEach(async () => {
    filings = new ScriptedCounter('test-scripted-filings', ['ScriptCreated']);
    history = new ScriptedCounter('test-scripted-history', ['ScriptCreated', 'ScriptNoted']);
    rt = await runtimeWithProjectors([filings, history], 'ifrs-scripted-');
    // The first batch ever inserts missing checkpoint rows, in a transaction: past it, batches are scripted.
    const first = await rt.store.append('first', [{ type: 'ScriptCreated', data: {} }], 0, {});
    await rt.engine.catchUp([filings.name, history.name]);
    await rt.engine.waitFor([filings.name, history.name], first.position, 10_000);
    filings.applies = history.applies = filings.scripts = history.scripts = 0;
  });
  afterEach(async () => rt.close());

  const counts = async (p: ScriptedCounter) =>
    Object.fromEntries((await rt.db.knex(p.tables[0]).select('stream_id', 'n').orderBy('stream_id')).map((r) => [r.stream_id, Number(r.n)]));

  it('rule: members that give their batch as statements are applied by one multi-statement query that also moves their checkpoints', async () => {
    await rt.engine.start();
    const writes = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => {
        const r = await rt.store.append(`scripted-${i}`, [{ type: 'ScriptCreated', data: {} }, { type: 'ScriptNoted', data: {} }], 0, {});
        await rt.engine.waitFor([filings.name, history.name], r.position, 10_000);
        const [f, h] = await Promise.all([counts(filings), counts(history)]);
        return [f[`scripted-${i}`], h[`scripted-${i}`]];
      }),
    );
    assert.deepEqual(writes, Array(30).fill([1, 2]));
    assert.equal(filings.applies + history.applies, 0, 'no batch went through apply');
    assert.ok(filings.scripts > 0 && history.scripts > 0);
    const [a, b] = await rt.db.knex('projection_checkpoints').whereIn('name', [filings.name, history.name]).orderBy('name').select('prepare_position', 'updated_at');
    assert.equal(a.prepare_position, b.prepare_position);
    // now() is the transaction's start: equal times mean one transaction moved both.
    assert.equal(a.updated_at.getTime(), b.updated_at.getTime());
  });

  it('rule: a failing statement rolls back the whole scripted batch, checkpoints included; the retry applies every event once', async () => {
    history.failures = 1;
    await rt.engine.start();
    const r = await rt.store.append('failing', [{ type: 'ScriptCreated', data: {} }], 0, {});
    await rt.engine.waitFor([filings.name, history.name], r.position, 10_000);
    assert.deepEqual(await counts(filings), { first: 1, failing: 1 });
    assert.deepEqual(await counts(history), { first: 1, failing: 1 });
  });

  it('rule: two runners of one scripted group (two processes) apply every event exactly once: the loser of a race applies nothing', async function () {
    this.timeout(60_000);
    const otherFilings = new ScriptedCounter(filings.name, eventTypesOf(filings));
    const otherHistory = new ScriptedCounter(history.name, eventTypesOf(history));
    const other = new ProjectionEngine(rt.db.knex, rt.store, [otherFilings, otherHistory], createLogger('silent'), 7);
    await Promise.all([rt.engine.start(), other.start()]);
    try {
      const positions = await Promise.all(
        Array.from({ length: 60 }, async (_, i) => (await rt.store.append(`raced-${i % 20}`, [{ type: 'ScriptCreated', data: {} }], 'any', {})).position),
      );
      await Promise.all([rt.engine.waitFor([filings.name, history.name], latest(positions), 20_000), other.waitFor([filings.name, history.name], latest(positions), 20_000)]);
    } finally {
      await other.stop();
    }
    const expected = { first: 1, ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`raced-${i}`, 3])) };
    assert.deepEqual(await counts(filings), expected);
    assert.deepEqual(await counts(history), expected);
    assert.equal(filings.applies + history.applies + otherFilings.applies + otherHistory.applies, 0, 'no batch went through apply');
  });
});
