import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type http from 'node:http';
import type { Knex } from 'knex';
import { runImport } from '../../../src/cli/import/import-cli';
import { PostgresSearchIndex } from '../../../infra/search/postgres-search-index';
import { SEARCH_PROJECTION } from '../../../src/read-models/search';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/util/logger';
import { openRuntime, type Runtime } from '../../../src/runtime';
import { startServer } from '../../../src/server';
import type { IndexWriteContext, IndexedFiling } from '../../../src/ports/search-index';
import { TOKENS } from '../../../src/ports/tokens';
import { catalogFiling, writeJsonl } from '../../support/catalog-records';
import { freshDatabaseUrl } from '../../support/postgres';

/** The Postgres search index whose writes can be held back: the search projection then lags while the others go on. */
class HeldSearchIndex extends PostgresSearchIndex {
  private gate: Promise<void> | null = null;
  private open: () => void = () => undefined;

  hold(): void {
    this.gate ??= new Promise((r) => (this.open = r));
  }

  release(): void {
    this.open();
    this.gate = null;
  }

  override async upsert(ctx: IndexWriteContext, filings: IndexedFiling[]): Promise<void> {
    if (this.gate) await this.gate;
    await super.upsert(ctx, filings);
  }
}

interface Ready {
  status: number;
  body: { status: string; lagging: string[]; catchingUp: string[]; maxLag: number; projections: { name: string; lag: number }[] };
}

const MAX_LAG = 20;

describe('readiness: /readyz covers every projection that serves reads, the search index included', function () {
  this.timeout(120_000);
  let rt: Runtime;
  let server: http.Server | null = null;
  let root: string;
  let search: HeldSearchIndex;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-readiness-'));

  const readyz = async (): Promise<Ready> => {
    const r = await fetch(`${root}/readyz`);
    return { status: r.status, body: (await r.json()) as Ready['body'] };
  };
  /** Polls /readyz until `done` holds for its answer (the projections run in the background). */
  const readyzUntil = async (done: (r: Ready) => boolean, what: string): Promise<Ready> => {
    let last: Ready | null = null;
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 50))) {
      last = await readyz();
      if (done(last)) return last;
    }
    throw new Error(`${what}: /readyz never answered so; last ${JSON.stringify(last)}`);
  };
  /** Appends catalog filings without waiting for any projection, as an import running beside the server does. */
  const importFilings = async (n: number) => {
    const f = writeJsonl(Array.from({ length: n }, () => catalogFiling()));
    try {
      const r = await runImport(rt, f, { wait: false });
      assert.equal(r.imported, n, JSON.stringify(r.errors));
    } finally {
      fs.rmSync(path.dirname(f), { recursive: true, force: true });
    }
  };

  before(async () => {
    const config = loadConfig({}, { dataDir, databaseUrl: await freshDatabaseUrl(), logLevel: 'warn', readyMaxLag: MAX_LAG });
    rt = await openRuntime(config, createLogger('silent'), {
      configure: (c) => {
        search = new HeldSearchIndex(c.get<Knex>(TOKENS.Knex));
        c.rebindSync(TOKENS.SearchIndex).toConstantValue(search);
      },
    });
  });
  after(async () => {
    search?.release();
    if (server) {
      server.closeAllConnections?.();
      await new Promise<void>((r) => server!.close(() => r()));
    }
    await rt.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rule: after a start, not ready until every projection, search included, has caught up with what was written before it (even within the lag bound)', async () => {
    // Written while no process projected (a crash during an import), fewer events than the bound.
    await importFilings(5);
    search.hold();
    const started = await startServer(rt, { port: 0, host: '127.0.0.1', role: 'all' });
    server = started.server;
    root = started.url!.replace(/\/api\/v2$/, '');
    const waiting = await readyzUntil((r) => r.body.catchingUp.length === 1, 'the other projections caught up');
    assert.equal(waiting.status, 503);
    assert.equal(waiting.body.status, 'not_ready');
    assert.deepEqual(waiting.body.catchingUp, [SEARCH_PROJECTION]);
    const lag = waiting.body.projections.find((p) => p.name === SEARCH_PROJECTION)!.lag;
    assert.ok(lag > 0 && lag <= MAX_LAG, `search lags within the bound (${lag})`);
    search.release();
    const ready = await readyzUntil((r) => r.status === 200, 'search caught up');
    assert.deepEqual(ready.body.catchingUp, []);
  });

  it('rule: once caught up, not ready while search lags the head by more than the bound; ready again when it is back', async () => {
    assert.equal((await readyz()).status, 200);
    search.hold();
    await importFilings(MAX_LAG * 2);
    const lagging = await readyzUntil((r) => r.body.lagging.length === 1, 'the other projections caught up');
    assert.equal(lagging.status, 503);
    assert.deepEqual(lagging.body.lagging, [SEARCH_PROJECTION]);
    assert.deepEqual(lagging.body.catchingUp, []);
    assert.ok(lagging.body.projections.find((p) => p.name === SEARCH_PROJECTION)!.lag > MAX_LAG);
    search.release();
    await readyzUntil((r) => r.status === 200 && r.body.lagging.length === 0, 'search caught up');
  });
});
