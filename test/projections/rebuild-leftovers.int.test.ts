import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime, type Runtime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';
import { CountingProjector } from '../support/counting-projector';
import { freshDatabaseUrl } from '../support/postgres';

const STREAMS = 20;
const PER_STREAM = 400;

/** A runtime on the database, as any `ifrs` process opens one at start. */
function start(url: string): Promise<Runtime> {
  return openRuntime(loadConfig({}, { databaseUrl: url, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-leftovers-')) }), createLogger('silent'), {
    configure: (c) => c.bind(TOKENS.Projector).toConstantValue(new CountingProjector()),
  });
}

/** A rebuild in its own process, paused in its second batch (the first one committed to the shadow table). */
function pausedRebuild(url: string, goFile: string): Promise<{ child: ChildProcess; exit: Promise<{ code: number | null; signal: string | null; err: string }> }> {
  const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(__dirname, '../support/rebuild-worker.ts'), url, goFile], { stdio: ['ignore', 'pipe', 'pipe'] });
  let err = '';
  child.stderr!.on('data', (d) => (err += d));
  const exit = new Promise<{ code: number | null; signal: string | null; err: string }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal, err })));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('paused\n')) resolve({ child, exit });
    });
    void exit.then((e) => reject(new Error(`the rebuild ended before pausing (${e.code ?? e.signal}): ${e.err}`)));
  });
}

async function liveCounts(rt: Runtime): Promise<Record<string, string>> {
  const rows = await rt.db.knex('test_counts').select('stream_id', 'n', 'last_version').orderBy('stream_id');
  return Object.fromEntries(rows.map((r) => [r.stream_id, `${r.n}/${r.last_version}`]));
}

async function shadowState(rt: Runtime): Promise<{ table: boolean; rows: number; checkpoint: boolean }> {
  const table = (await rt.db.knex.raw(`select to_regclass('test_counts__rb') is not null as t`)).rows[0].t as boolean;
  const rows = table ? Number((await rt.db.knex.raw(`select count(*) as n from test_counts__rb`)).rows[0].n) : 0;
  const checkpoint = !!(await rt.db.knex('projection_checkpoints').where({ name: 'test-counter__rb' }).first());
  return { table, rows, checkpoint };
}

describe('projections rebuild: leftovers of an interrupted rebuild', function () {
  this.timeout(120_000);
  let url: string;
  let rt: Runtime;
  let live: Record<string, string>;
  const goFile = () => path.join(os.tmpdir(), `ifrs-rebuild-go-${process.pid}-${Math.random().toString(36).slice(2)}`);

  before(async () => {
    url = await freshDatabaseUrl();
    rt = await start(url);
    for (let s = 0; s < STREAMS; s++) {
      for (let v = 0; v < PER_STREAM; v += 100) await rt.store.append(`counted-${s}`, Array.from({ length: 100 }, () => ({ type: 'TestCounted', data: {} })), v, {});
    }
    await rt.engine.catchUp(['test-counter']);
    live = await liveCounts(rt);
    assert.equal(Object.keys(live).length, STREAMS);
  });
  after(async () => rt.close());

  it('rule: shadow tables of a rebuild killed with -9 are removed at the next start; the live tables are untouched', async () => {
    const { child, exit } = await pausedRebuild(url, goFile());
    child.kill('SIGKILL');
    assert.equal((await exit).signal, 'SIGKILL');
    const left = await shadowState(rt);
    assert.ok(left.table && left.rows > 0 && left.checkpoint, `the killed rebuild left a filled shadow table and its checkpoint (${JSON.stringify(left)})`);

    const next = await start(url);
    try {
      assert.deepEqual(await shadowState(next), { table: false, rows: 0, checkpoint: false });
      assert.deepEqual(await liveCounts(next), live);
      assert.ok(await next.db.knex('projection_checkpoints').where({ name: 'test-counter' }).first(), 'the live checkpoint stays');
    } finally {
      await next.close();
    }
  });

  it('rule: a start while a rebuild runs leaves its shadow tables to it, and that rebuild completes', async () => {
    const go = goFile();
    const { exit } = await pausedRebuild(url, go);
    try {
      const other = await start(url);
      await other.close();
      const during = await shadowState(rt);
      assert.ok(during.table && during.rows > 0 && during.checkpoint, `the running rebuild's shadow table survived the start (${JSON.stringify(during)})`);
    } finally {
      fs.writeFileSync(go, '');
    }
    const done = await exit;
    fs.rmSync(go, { force: true });
    assert.equal(done.code, 0, done.err);
    assert.deepEqual(await shadowState(rt), { table: false, rows: 0, checkpoint: false });
    assert.deepEqual(await liveCounts(rt), live);
  });
});
