import assert from 'node:assert/strict';
import knexFactory, { type Knex } from 'knex';
import { inlineStatement, runScript } from '../../../infra/postgres/sql-script';
import { freshDatabaseUrl } from '../../support/postgres';

describe('multi-statement scripts (projector batches in one round trip)', function () {
  this.timeout(60_000);
  let knex: Knex;
  before(async () => {
    // One connection: every script lands on the same session, whose prepared statements carry over.
    knex = knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 1, max: 1 } });
    await knex.raw(`create table script_t (id int primary key, doc jsonb not null, note text)`);
  });
  after(async () => knex.destroy());

  const rows = async () => (await knex('script_t').orderBy('id').select('id', 'doc', 'note')) as { id: number; doc: unknown; note: string | null }[];
  const insert = (id: number, doc: unknown) => ({ text: `insert into script_t (id, doc) values ($1, cast($2 as jsonb))`, values: [id, JSON.stringify(doc)], reuse: true });

  it('rule: values are written in as literals that read back exactly; $n inside a value is not a placeholder', () => {
    assert.equal(inlineStatement({ text: 'select $1, $2, $3, $4, $5', values: ["it's $2", -3, null, true, ['a', "b'"]] }), `select 'it''s $2', (-3), null, true, array['a', 'b''']`);
    assert.equal(inlineStatement({ text: 'select $1', values: ['a\\b'] }), `select  E'a\\\\b'`);
    assert.throws(() => inlineStatement({ text: 'select $2', values: [1] }), /no value for \$2/);
    assert.throws(() => inlineStatement({ text: 'select $1', values: [{ a: 1 }] }), /cannot write/);
  });

  it('rule: a reusable statement is prepared once per connection and runs with the values of each script', async () => {
    await runScript(knex, [insert(1, { a: "O'Brien \\ $1" }), { text: `update script_t set note = $1 where id = $2`, values: ['first', 1] }]);
    await runScript(knex, [insert(2, { b: 2 })]);
    assert.deepEqual(await rows(), [
      { id: 1, doc: { a: "O'Brien \\ $1" }, note: 'first' },
      { id: 2, doc: { b: 2 }, note: null },
    ]);
    const prepared = (await knex.raw(`select count(*)::int as n from pg_prepared_statements where name like 'ifrs\\_script\\_%'`)).rows[0].n;
    assert.equal(prepared, 1);
  });

  it('rule: a failing statement rolls back the whole script; the connection goes on preparing and running scripts', async () => {
    await assert.rejects(runScript(knex, [insert(3, { c: 3 }), { text: `select 1 / $1`, values: [0] }]), /division by zero/);
    assert.deepEqual((await rows()).map((r) => r.id), [1, 2]);
    // A new reusable text whose PREPARE itself fails: the ones prepared before it stay known.
    await assert.rejects(runScript(knex, [{ text: `insert into script_t (id, doc) values ($1, '{}'::jsonb)`, values: [4], reuse: true }, { text: `select * from no_such_table where id = $1`, values: [1], reuse: true }]), /no_such_table/);
    await runScript(knex, [{ text: `insert into script_t (id, doc) values ($1, '{}'::jsonb)`, values: [4], reuse: true }, insert(5, {})]);
    assert.deepEqual((await rows()).map((r) => r.id), [1, 2, 4, 5]);
  });
});
