import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../../infra/postgres/database';
import { queryPreparedSql, runStatement } from '../../../infra/postgres/prepared';
import { createLogger } from '../../../src/util/logger';
import { freshDatabaseUrl } from '../../support/postgres';

const pidOf = async (knex: Database['knex']): Promise<number> => (await knex.raw('select pg_backend_pid() as pid')).rows[0].pid;

describe('database pool bounds: work_mem, recycling, the read pool statement timeout, cancel when the client goes away', () => {
  let db: Database;
  before(async () => {
    db = await openDatabase({
      dataDir: '/nonexistent',
      databaseUrl: await freshDatabaseUrl(),
      log: createLogger('silent'),
      poolMax: 1,
      migrate: false,
      bounds: { workMem: '3MB', maxUses: 3 },
      requestStatementTimeoutMs: 200,
    });
  });
  after(async () => db?.close());

  it('rule: pooled connections run with the configured work_mem (both pools)', async () => {
    assert.equal((await db.knex.raw('show work_mem')).rows[0].work_mem, '3MB');
    assert.equal((await db.readKnex.raw('show work_mem')).rows[0].work_mem, '3MB');
  });

  it('rule: a pooled connection is replaced after maxUses loans (a backend keeps what it grew until it ends)', async () => {
    const pids: number[] = [];
    for (let i = 0; i < 7; i++) pids.push(await pidOf(db.knex));
    // One connection (poolMax 1), lent at most 3 times each.
    const runs = pids.reduce<number[]>((acc, p, i) => (i > 0 && p === pids[i - 1] ? (acc[acc.length - 1]++, acc) : [...acc, 1]), []);
    assert.ok(runs.length >= 3, JSON.stringify(pids));
    assert.ok(runs.every((n) => n <= 3), JSON.stringify(pids));
  });

  it('rule: a statement on the read pool past the statement timeout is cancelled by the server (57014); the pool answers again', async () => {
    assert.equal((await db.readKnex.raw('show statement_timeout')).rows[0].statement_timeout, '200ms');
    await assert.rejects(db.readKnex.raw('select pg_sleep(5)'), (e: { code?: string }) => e.code === '57014');
    assert.equal((await db.readKnex.raw('select 1 as one')).rows[0].one, 1);
  });

  it('rule: the work pool (projectors, imports, rebuilds, migrations) has no statement timeout', async () => {
    assert.equal((await db.knex.raw('show statement_timeout')).rows[0].statement_timeout, '0');
    await db.knex.raw('select pg_sleep(0.3)');
  });

  it('rule: a statement whose client went away is cancelled at once, and its connection is not lent again', async () => {
    const before = await pidOf(db.knex);
    const gone = new AbortController();
    const start = Date.now();
    const sleeping = runStatement(db.knex, { text: 'select pg_sleep(5)', values: [] }, gone.signal);
    setTimeout(() => gone.abort(), 100);
    await assert.rejects(sleeping, (e: { code?: string }) => e.code === '57014');
    assert.ok(Date.now() - start < 2_000);
    assert.notEqual(await pidOf(db.knex), before);
  });

  it('rule: a statement whose client had already gone is not sent', async () => {
    const gone = new AbortController();
    gone.abort();
    await assert.rejects(queryPreparedSql(db.knex, 'select 1', [], gone.signal), (e: { code?: string }) => e.code === '57014');
  });

  it('rule: without a signal, or with one that never aborts, statements run to their end', async () => {
    assert.deepEqual(await runStatement(db.knex, { text: 'select pg_sleep(0.2), 1 as one', values: [] }), [{ pg_sleep: '', one: 1 }]);
    assert.deepEqual(await queryPreparedSql(db.knex, 'select 2 as two', [], new AbortController().signal), [{ two: 2 }]);
  });
});
