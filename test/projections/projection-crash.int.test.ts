import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime, type Runtime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';
import { CountingProjector } from '../support/counting-projector';
import { freshDatabaseUrl } from '../support/postgres';
import fs from 'node:fs';
import os from 'node:os';

const STREAMS = 30;
const PER_STREAM = 200;

async function counts(rt: Runtime, table = 'test_counts'): Promise<Record<string, string>> {
  const rows = await rt.db.knex(table).select('stream_id', 'n', 'last_version').orderBy('stream_id');
  return Object.fromEntries(rows.map((r) => [r.stream_id, `${r.n}/${r.last_version}`]));
}

/**
 * Starts the worker process and SIGKILLs it `ms` after its checkpoint first moves past `from` (so the
 * kill lands while it works, however slowly a busy machine lets it start); resolves with whether it
 * got to finish first.
 */
function runAndKill(url: string, ms: number, position: () => Promise<number>, from: number): Promise<'killed' | 'finished'> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', path.join(__dirname, '../support/projection-worker.ts'), url], { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    let timer: NodeJS.Timeout | null = null;
    let exited = false;
    const watch = async () => {
      while (!exited && !timer) {
        if ((await position()) > from) timer = setTimeout(() => child.kill('SIGKILL'), ms);
        else await new Promise((r) => setTimeout(r, 5));
      }
    };
    void watch().catch(reject);
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', (code, signal) => {
      exited = true;
      if (timer) clearTimeout(timer);
      if (signal === 'SIGKILL') resolve('killed');
      else if (code === 0) resolve('finished');
      else reject(new Error(`worker failed (${code}): ${err}`));
    });
  });
}

describe('projection engine: crash safety', () => {
  let rt: Runtime;
  let url: string;
  before(async () => {
    url = await freshDatabaseUrl();
    rt = await openRuntime(loadConfig({}, { databaseUrl: url, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-crash-')) }), createLogger('silent'), {
      configure: (c) => c.bind(TOKENS.Projector).toConstantValue(new CountingProjector()),
    });
    for (let s = 0; s < STREAMS; s++) {
      for (let v = 0; v < PER_STREAM; v += 50) {
        await rt.store.append(`counted-${s}`, Array.from({ length: 50 }, () => ({ type: 'TestCounted', data: {} })), v, {});
      }
    }
  });
  after(async () => rt.close());

  it('rule: a process killed at any moment loses nothing and applies nothing twice (equal to a clean rebuild)', async function () {
    this.timeout(180_000);
    const head = await rt.store.head();
    const position = async () => (await rt.engine.status()).projections.find((p) => p.name === 'test-counter')!.position;
    const positions: number[] = [];
    for (const ms of [0, 40, 150, 15]) {
      const outcome = await runAndKill(url, ms, position, positions.at(-1) ?? 0);
      positions.push(await position());
      if (outcome === 'finished') break;
    }
    assert.ok(positions.some((p) => p > 0 && p < Number(head.prepare)), `a kill landed mid-run (positions ${positions.join(', ')})`);
    // Whatever the kills left behind, resuming completes the read model exactly.
    await rt.engine.catchUp(['test-counter']);
    const resumed = await counts(rt);
    assert.equal(Object.keys(resumed).length, STREAMS);
    for (const v of Object.values(resumed)) assert.equal(v, `${PER_STREAM}/${PER_STREAM}`);
    await rt.engine.rebuild(['test-counter']);
    assert.deepEqual(await counts(rt), resumed);
  });

  it('rule: rebuild builds new tables and swaps them while the old ones keep serving', async () => {
    const before = await counts(rt);
    // Reads of the live table while the shadow table fills: each must see the complete old model.
    const readsDuringRebuild: Promise<Record<string, string>>[] = [];
    await rt.engine.rebuild(['test-counter'], (p) => {
      if (p.events > 0) readsDuringRebuild.push(counts(rt));
    });
    assert.ok(readsDuringRebuild.length > 0, 'the rebuild reported progress while running');
    for (const seen of await Promise.all(readsDuringRebuild)) assert.deepEqual(seen, before);
    assert.deepEqual(await counts(rt), before);
    const shadow = await rt.db.knex.raw(`select to_regclass('test_counts__rb') as t`);
    assert.equal(shadow.rows[0].t, null, 'the shadow table was swapped in, not left behind');
  });
});
