import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../infra/postgres/database';
import { createLogger } from '../../src/logger';
import { runInStatementScope, type StatementScope } from '../../src/util/statement-scope';
import { freshDatabaseUrl } from '../support/postgres';

const pidOf = async (db: Database): Promise<number> => (await db.knex.raw('select pg_backend_pid() as pid')).rows[0].pid;
const scope = (timeoutMs: number, signal = new AbortController().signal): StatementScope => ({ signal, timeoutMs, open: true });

describe('database pool bounds: work_mem, recycling, statement bounds of a request', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await freshDatabaseUrl(), log: createLogger('silent'), poolMax: 1, migrate: false, bounds: { workMem: '3MB', maxUses: 3 } });
  });
  after(async () => db?.close());

  it('rule: pooled connections run with the configured work_mem', async () => {
    assert.equal((await db.knex.raw('show work_mem')).rows[0].work_mem, '3MB');
  });

  it('rule: a pooled connection is replaced after maxUses loans (a backend keeps what it grew until it ends)', async () => {
    const pids: number[] = [];
    for (let i = 0; i < 7; i++) pids.push(await pidOf(db));
    // One connection (poolMax 1), lent at most 3 times each.
    const runs = pids.reduce<number[]>((acc, p, i) => (i > 0 && p === pids[i - 1] ? (acc[acc.length - 1]++, acc) : [...acc, 1]), []);
    assert.ok(runs.length >= 3, JSON.stringify(pids));
    assert.ok(runs.every((n) => n <= 3), JSON.stringify(pids));
  });

  it('rule: a statement of a request past its timeout is cancelled (57014), and its connection is not lent again', async () => {
    const before = await pidOf(db);
    await assert.rejects(
      runInStatementScope(scope(100), async () => void (await db.knex.raw('select pg_sleep(5)'))),
      (e: { code?: string }) => e.code === '57014',
    );
    assert.notEqual(await pidOf(db), before);
  });

  it('rule: a request whose client went away has its running statement cancelled at once', async () => {
    const gone = new AbortController();
    const start = Date.now();
    const sleeping = runInStatementScope(scope(60_000, gone.signal), async () => void (await db.knex.raw('select pg_sleep(5)')));
    setTimeout(() => gone.abort(), 100);
    await assert.rejects(sleeping, (e: { code?: string }) => e.code === '57014');
    assert.ok(Date.now() - start < 2_000);
  });

  it('rule: a statement a request starts after its client went away is not run', async () => {
    const gone = new AbortController();
    gone.abort();
    await assert.rejects(
      runInStatementScope(scope(60_000, gone.signal), async () => void (await db.knex.raw('select 1'))),
      (e: { code?: string }) => e.code === '57014',
    );
  });

  it('rule: statements outside a request (projectors, imports) and after the answer (a closed scope) are not bounded', async () => {
    await db.knex.raw('select pg_sleep(0.3)');
    const closed = scope(50);
    closed.open = false;
    await runInStatementScope(closed, async () => void (await db.knex.raw('select pg_sleep(0.3)')));
  });
});
