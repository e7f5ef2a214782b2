import assert from 'node:assert/strict';
import { wholeCharacterLength } from '../../queries/files/utf8-chunk';
import { contentDisposition, parseRange } from '../../queries/files/signed-file-download';

describe('text chunks and download helpers (unit)', () => {
  it('rule: a chunk never splits a UTF-8 character', () => {
    const text = Buffer.from('aé中😀b', 'utf8'); // 1 + 2 + 3 + 4 + 1 bytes
    for (let start = 0; start < text.length; ) {
      const n = wholeCharacterLength(text.subarray(start, start + 4), start + 4 >= text.length);
      assert.ok(n > 0, `progress at ${start}`);
      assert.doesNotThrow(() => new TextDecoder('utf-8', { fatal: true }).decode(text.subarray(start, start + n)));
      start += n;
    }
    assert.equal(wholeCharacterLength(Buffer.from('ab中', 'utf8').subarray(0, 4), false), 2);
  });

  it('parses single byte ranges and refuses unsatisfiable ones', () => {
    assert.deepEqual(parseRange('bytes=0-9', 100), { start: 0, end: 9 });
    assert.deepEqual(parseRange('bytes=90-', 100), { start: 90, end: 99 });
    assert.deepEqual(parseRange('bytes=-10', 100), { start: 90, end: 99 });
    assert.deepEqual(parseRange('bytes=95-200', 100), { start: 95, end: 99 });
    assert.equal(parseRange('bytes=100-', 100), 'unsatisfiable');
    assert.equal(parseRange('bytes=0-1,5-6', 100), 'all');
    assert.equal(parseRange(undefined, 100), 'all');
  });

  it('writes Content-Disposition with an RFC 8187 filename*', () => {
    assert.equal(contentDisposition('Résumé (v2).pdf'), `attachment; filename="R_sum_ (v2).pdf"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%282%29.pdf`.replace('%282%29', '%28v2%29'));
  });
});
