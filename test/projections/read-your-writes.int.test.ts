import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime, type Runtime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';
import { CountingProjector } from '../support/counting-projector';
import { freshDatabaseUrl } from '../support/postgres';

describe('projection engine: read-your-writes waits', () => {
  let rt: Runtime;
  beforeEach(async () => {
    const url = await freshDatabaseUrl();
    rt = await openRuntime(loadConfig({}, { databaseUrl: url, dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-ryw-')) }), createLogger('silent'), {
      configure: (c) => c.bind(TOKENS.Projector).toConstantValue(new CountingProjector()),
    });
    await rt.engine.start();
  });
  afterEach(async () => rt.close());

  const count = async (stream: string) => (await rt.db.knex('test_counts').where({ stream_id: stream }).first('n'))?.n;

  it('rule: concurrent writes each answer only once the running projector holds them, whichever batch carries them', async () => {
    const writes = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await rt.store.append(`counted-${i}`, [{ type: 'TestCounted', data: {} }], 0, {});
        await rt.engine.waitFor(['test-counter'], r.position, 10_000);
        return count(`counted-${i}`);
      }),
    );
    assert.deepEqual(writes, Array(40).fill(1));
  });

  it('rule: a projector that went quiet after other projectors\' events still serves a write that waits for it', async () => {
    for (let i = 0; i < 5; i++) {
      await rt.store.append(`other-${i}`, [{ type: 'SomethingElse', data: {} }], 0, {});
      rt.engine.poke();
    }
    const r = await rt.store.append('counted-quiet', [{ type: 'TestCounted', data: {} }], 0, {});
    await rt.engine.waitFor(['test-counter'], r.position, 10_000);
    assert.equal(await count('counted-quiet'), 1);
  });

  it('rule: a wait for a position never reached fails after its timeout', async () => {
    const head = await rt.store.head();
    await assert.rejects(rt.engine.waitFor(['test-counter'], { commit: head.commit + 1_000_000n, prepare: head.prepare + 1n }, 300), /did not reach the write within 300 ms/);
  });

  it('rule: a wait pending when the engine stops still completes: the process then projects by itself', async () => {
    const r = await rt.store.append('counted-stop', [{ type: 'TestCounted', data: {} }], 0, {});
    const waiting = rt.engine.waitFor(['test-counter'], r.position, 10_000);
    await rt.engine.stop();
    await waiting;
    assert.equal(await count('counted-stop'), 1);
  });
});
