import assert from 'node:assert/strict';
import { wholeCharacterLength } from '../../../queries/files/utf8-chunk';
import { jsonString, textChunkBody } from '../../../queries/files/text-chunk-json';
import { contentDisposition, parseRange } from '../../../queries/files/signed-file-download';

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

  it('escapes text exactly as JSON.stringify does, whichever path it takes', () => {
    const long = (s: string) => s.repeat(Math.ceil(600 / s.length));
    const samples = [
      '',
      'short "q" \\ \n',
      long('page one "quoted" back\\slash line\n'),
      long('pages\fsplit\fby\fform feeds é中😀 \u2028\u2029 \u007f'),
      long('rare control \t tab \r return \u0001 \u001f \b'),
      long('nul \u0000 inside'),
      long('plain ascii without anything to escape'),
    ];
    for (const s of samples) assert.equal(jsonString(s), JSON.stringify(s), JSON.stringify(s.slice(0, 40)));
  });

  it('writes the chunk body as JSON.stringify of the ExtractedTextChunk would', () => {
    const parts = { fileId: 'f', textRevision: 'r1', start: 3, end: 9 };
    for (const nextCursor of [null, 'abc_-']) {
      const body = textChunkBody({ ...parts, textJson: jsonString('a "b"\f'), nextCursor });
      const expected = { fileId: 'f', text: 'a "b"\f', textRevision: 'r1', versionId: null, location: { startOffsetBytes: 3, endOffsetBytes: 9 }, nextCursor };
      assert.equal(body, JSON.stringify(expected));
    }
  });
});
