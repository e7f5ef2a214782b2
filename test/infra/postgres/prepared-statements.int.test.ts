import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import { queryPreparedSql, MAX_PREPARED_PER_CONNECTION, runStatement } from '../../../infra/postgres/prepared';
import { freshDatabaseUrl } from '../../support/postgres';
import { openDatabase } from '../../../infra/postgres/database';
import { createLogger } from '../../../src/util/logger';

describe('prepared statements (infra/postgres/prepared.ts)', function () {
  this.timeout(60_000);
  let knex: Knex;

  before(async () => {
    knex = knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 1, max: 1 } });
  });
  after(async () => {
    await knex.destroy();
  });

  it('rule: a connection holding the maximum of prepared statements prepares no more, and the pool lends a fresh connection in its place', async () => {
    // The pool as the service opens it (its validate retires connections), one connection, so every loan shows which backend it got.
    const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await freshDatabaseUrl(), log: createLogger('silent'), poolMax: 1, migrate: false });
    try {
      const backend = async () => (await runStatement<{ pid: number; n: number }>(db.knex, { text: 'select pg_backend_pid() as pid, (select count(*)::int from pg_prepared_statements) as n', values: [] }))[0];
      const first = await backend();
      // Each text is its own statement (the value is written into the SQL, as the catalog list does with dates).
      for (let i = 0; i < MAX_PREPARED_PER_CONNECTION; i++) assert.equal((await queryPreparedSql<{ v: number }>(db.knex, `select ${i}::int + $1::int as v`, [1]))[0].v, i + 1);
      assert.deepEqual(await backend(), { pid: first.pid, n: MAX_PREPARED_PER_CONNECTION });
      // One more: answered unnamed on the full connection, which is then retired.
      assert.equal((await queryPreparedSql<{ v: number }>(db.knex, `select ${MAX_PREPARED_PER_CONNECTION}::int + $1::int as v`, [1]))[0].v, MAX_PREPARED_PER_CONNECTION + 1);
      const fresh = await backend();
      assert.notEqual(fresh.pid, first.pid);
      assert.equal(fresh.n, 0);
      // The fresh connection prepares what it runs again, and answers correctly.
      assert.equal((await queryPreparedSql<{ v: number }>(db.knex, 'select 0::int + $1::int as v', [2]))[0].v, 2);
      const names = await runStatement<{ statement: string }>(db.knex, { text: 'select statement from pg_prepared_statements', values: [] });
      assert.deepEqual(names.map((r) => r.statement), ['select 0::int + $1::int as v']);
    } finally {
      await db.close();
    }
  });

  it('rule: a statement whose preparation failed leaves the connection usable, within and beyond the maximum', async () => {
    await assert.rejects(queryPreparedSql(knex, 'select no_such_column from pg_class limit 1', []));
    for (let i = 0; i < MAX_PREPARED_PER_CONNECTION + 10; i++) await queryPreparedSql(knex, `select ${i + 1000}::int as v`, []);
    assert.equal((await queryPreparedSql<{ v: number }>(knex, 'select 7::int as v', []))[0].v, 7);
  });
});
