import assert from 'node:assert/strict';
import { AppError } from '../../src/domain/errors';
import { findUnstorableText } from '../../src/http/input-hygiene';
import { parseQueryString } from '../../src/http/query-string';

describe('input hygiene (unit)', () => {
  it('rule: the path of the first NUL or unpaired surrogate is found in values, keys and arrays; paired surrogates pass', () => {
    assert.equal(findUnstorableText({ a: 'ok', b: ['😀', { c: 'e\u0301' }] }), null);
    assert.deepEqual(findUnstorableText({ a: 'ok', b: ['x', { c: 'y\ud800' }] }), ['b', '1', 'c']);
    assert.deepEqual(findUnstorableText({ a: { ['k\udc00']: 1 } }), ['a', 'k\udc00']);
    assert.deepEqual(findUnstorableText(['\u0000']), ['0']);
    assert.deepEqual(findUnstorableText('\udbff'), []);
    assert.equal(findUnstorableText(42), null);
  });

  it('rule: a query escape that is not UTF-8 is a 400 at the query naming its parameter; valid ones decode as querystring does', () => {
    assert.deepEqual({ ...parseQueryString('a=x+y&b=%E2%82%AC&b=2') }, { a: 'x y', b: ['€', '2'] });
    assert.deepEqual({ ...parseQueryString(null) }, {});
    for (const [q, key] of [['a=1&limit=%E0%A4', 'limit'], ['%ED%A0%80=1', '%ED%A0%80'], ['x=100%', 'x']] as const) {
      assert.throws(
        () => parseQueryString(q),
        (e: unknown) => e instanceof AppError && e.status === 400 && e.details[0].location === 'query' && e.details[0].path[0] === key,
        q,
      );
    }
  });

  it('rule: every pair of a long query is kept (querystring alone dropped all after the 1,000th)', () => {
    const q = Array.from({ length: 1500 }, (_, i) => `v=${i}`).join('&');
    assert.equal((parseQueryString(q).v as string[]).length, 1500);
  });
});
