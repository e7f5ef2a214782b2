import assert from 'node:assert/strict';
import { joinPages } from '../../src/domain/text-pages';

describe('files: stored text and its page map', () => {
  it('rule: pages are joined with form feeds, and each page starts at its UTF-8 byte offset in the joined text', () => {
    const pages = ['ab', 'é€', '', 'z'];
    const joined = joinPages(pages);
    assert.equal(joined.text, 'ab\fé€\f\fz');
    assert.deepEqual(joined.pageStarts, [0, 3, 9, 10]);
    const bytes = Buffer.from(joined.text, 'utf8');
    pages.forEach((page, i) => assert.equal(bytes.subarray(joined.pageStarts[i], joined.pageStarts[i] + Buffer.byteLength(page)).toString('utf8'), page));
  });

  it('rule: one page has no form feed; no pages is an empty text without starts', () => {
    assert.deepEqual(joinPages(['only']), { text: 'only', pageStarts: [0] });
    assert.deepEqual(joinPages([]), { text: '', pageStarts: [] });
  });
});
