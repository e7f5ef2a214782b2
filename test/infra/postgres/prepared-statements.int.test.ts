import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import { queryPreparedSql } from '../../../infra/postgres/prepared';
import { freshDatabaseUrl } from '../../support/postgres';

describe('prepared statements (infra/postgres/prepared.ts)', function () {
  this.timeout(60_000);
  let knex: Knex;

  before(async () => {
    knex = knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 1, max: 1 } });
  });
  after(async () => {
    await knex.destroy();
  });

  const preparedCount = async () => (await queryPreparedSql<{ n: number }>(knex, 'select count(*)::int as n from pg_prepared_statements', []))[0].n;

  it('a connection keeps at most 200 prepared statements: beyond, the least recently used is deallocated and a forgotten one is prepared again', async () => {
    // Each text is its own statement (the value is written into the SQL, as the catalog list does with dates).
    for (let i = 0; i < 250; i++) {
      const rows = await queryPreparedSql<{ v: number }>(knex, `select ${i}::int + $1::int as v`, [1]);
      assert.equal(rows[0].v, i + 1);
    }
    assert.ok((await preparedCount()) <= 200);
    // The first ones were deallocated; running them again prepares them again and answers correctly.
    for (let i = 0; i < 5; i++) assert.equal((await queryPreparedSql<{ v: number }>(knex, `select ${i}::int + $1::int as v`, [2]))[0].v, i + 2);
    const names = (await queryPreparedSql<{ statement: string }>(knex, 'select statement from pg_prepared_statements', [])).map((r) => r.statement);
    assert.ok(names.includes('select 0::int + $1::int as v'));
    assert.ok((await preparedCount()) <= 200);
  });

  it('a statement whose preparation failed is evicted without a deallocate error', async () => {
    await assert.rejects(queryPreparedSql(knex, 'select no_such_column from pg_class limit 1', []));
    for (let i = 0; i < 210; i++) await queryPreparedSql(knex, `select ${i + 1000}::int as v`, []);
    assert.equal((await queryPreparedSql<{ v: number }>(knex, 'select 7::int as v', []))[0].v, 7);
  });
});
