import assert from 'node:assert/strict';
import { empty, ident, inList, join, raw, sql, where } from '../../../infra/postgres/sql';

describe('sql tag: one way to write hand-written SQL', () => {
  it('rule: a value is a $n parameter, never text', () => {
    const name = "x'; drop table t; --";
    const s = sql`select * from t where a = ${name} and b = ${2}`;
    assert.equal(s.text, 'select * from t where a = $1 and b = $2');
    assert.deepEqual(s.values, [name, 2]);
  });

  it('rule: nested pieces are spliced in and numbered in reading order', () => {
    const inner = sql`c = ${'c'} and d = ${'d'}`;
    const s = sql`select ${1} from t where ${inner} and e = ${'e'}`;
    assert.equal(s.text, 'select $1 from t where c = $2 and d = $3 and e = $4');
    assert.deepEqual(s.values, [1, 'c', 'd', 'e']);
  });

  it('rule: equal requests give equal text (one prepared statement per shape)', () => {
    const build = (v: string[]) => sql`select 1 from t${where([inList('a', v), sql`b = ${v[0]}`])}`;
    assert.equal(build(['x', 'y']).text, build(['p', 'q']).text);
    assert.notEqual(build(['x']).text, build(['x', 'y']).text);
  });

  it('rule: raw and ident are SQL text (identifiers quoted), empty adds nothing', () => {
    const s = sql`select ${ident('we"ird')} from ${raw('t')}${empty} limit ${raw(5)}`;
    assert.equal(s.text, 'select "we""ird" from t limit 5');
    assert.deepEqual(s.values, []);
    assert.equal(empty.isEmpty, true);
    assert.equal(raw('x').isEmpty, false);
  });

  it('rule: join separates pieces and values with trusted text; an empty join is empty', () => {
    const s = join([sql`a = ${1}`, 'v', raw('true')], ' or ');
    assert.equal(s.text, 'a = $1 or $2 or true');
    assert.deepEqual(s.values, [1, 'v']);
    assert.equal(join([]).isEmpty, true);
  });

  it('rule: an empty in-list matches nothing, a list binds each value', () => {
    assert.equal(inList('a', []).text, '1 = 0');
    const s = inList('a', ['x', 'y']);
    assert.equal(s.text, '"a" in ($1, $2)');
    assert.deepEqual(s.values, ['x', 'y']);
  });

  it('rule: no predicates is no WHERE clause', () => {
    assert.equal(where([]).text, '');
    assert.equal(where([sql`a = ${1}`, raw('b')]).text, ' where a = $1 and b');
  });
});
