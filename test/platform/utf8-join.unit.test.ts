import assert from 'node:assert/strict';
import { utf8Join } from '../../src/http/utf8-join';

describe('utf8Join (a response assembled from many strings)', () => {
  const same = (parts: string[]) => assert.deepEqual(utf8Join(parts), Buffer.from(parts.join(''), 'utf8'));

  it('encodes exactly as Buffer.from of the joined text: ASCII, escapes, non-ASCII, pairs and lone surrogates', () => {
    same([]);
    same(['']);
    same(['{"a":[', '{"n":"Compañía \\"x\\" ü"}', ',', '{"e":"😀 \u2028"}', '],"c":null}']);
    same(['\ud83d', '\ude00', 'x\ud800', '\udfff']);
  });

  it('grows its scratch space for a page larger than before, and a later small page is unaffected', () => {
    const big = Array.from({ length: 400 }, (_, i) => `{"i":${i},"t":"${'é'.repeat(300)}"}`);
    same(big);
    same(['{"small":true}']);
  });

  it('a result stays its own when the next call reuses the scratch space', () => {
    const first = utf8Join(['first page ', 'ü']);
    utf8Join(['second page that overwrites the scratch']);
    assert.equal(first.toString('utf8'), 'first page ü');
  });

  it('very large responses (beyond the scratch limit) are encoded the same way', () => {
    same(Array.from({ length: 50 }, () => 'ø'.repeat(10_000)));
  });
});
