import assert from 'node:assert/strict';
import type { estypes } from '@elastic/elasticsearch';
import { PAGES_KEPT, groupMatchedPages, holdsEveryMatch, pageTexts } from '../../../infra/search/elasticsearch/matched-pages';

describe('ElasticsearchSearchIndex: matched files and best pages from one flat page search', () => {
  // The sort-values form: [score, fileId, page (a missing one sorts last as Integer.MAX_VALUE), segment, filingId, fileName.raw, versionId].
  const hit = (filingId: string, fileId: string, page: number | null, segment = 0): estypes.SearchHit => ({
    _index: 'i',
    sort: [1, fileId, page ?? 2_147_483_647, segment, filingId, `${fileId}.pdf`, 'v1'],
  });

  it('rule: a file ranks by its best page; each file keeps its best pages in score order; files per filing are capped', () => {
    // Hits arrive best first.
    const hits = [hit('A', 'a2', 3), hit('B', 'b1', 1), hit('A', 'a1', 1), hit('A', 'a2', 1), hit('A', 'a3', null), hit('A', 'a2', 2), hit('A', 'a2', 4), hit('A', 'a1', 2, 1)];
    const g = groupMatchedPages(hits, 2);
    assert.deepEqual(g.files.get('A')!.map((m) => m.fileId), ['a2', 'a1']);
    assert.deepEqual(g.files.get('A')![0], { fileId: 'a2', versionId: 'v1', name: 'a2.pdf' });
    assert.deepEqual(g.files.get('B')!.map((m) => m.fileId), ['b1']);
    assert.equal(PAGES_KEPT, 3);
    assert.deepEqual(g.pages.get('a2'), ['A:a2:3:0', 'A:a2:1:0', 'A:a2:2:0']);
    assert.deepEqual(g.pages.get('a1'), ['A:a1:1:0', 'A:a1:2:1']);
    assert.equal(g.pages.has('a3'), false, 'a file past the cap is not listed, and gets no passages');
  });

  it('rule: the with-text form (_source) lists the same files and pages as the sort-values form, and hands on each page\'s text', () => {
    const withText = (h: estypes.SearchHit): estypes.SearchHit => {
      const [, fileId, sortedPage, segment, filingId, fileName, versionId] = h.sort as [number, string, number, number, string, string, string];
      const page = sortedPage === 2_147_483_647 ? null : sortedPage;
      const id = `${filingId}:${fileId}:${String(page ?? 0)}:${String(segment)}`;
      return { _index: 'i', _id: id, _source: { filingId, fileId, fileName, versionId, page, segment, body: `text of ${id}` } };
    };
    const hits = [hit('A', 'a2', 3), hit('B', 'b1', 1), hit('A', 'a1', 1), hit('A', 'a3', null), hit('A', 'a1', 2, 1)];
    const sources = hits.map(withText);
    assert.deepEqual(groupMatchedPages(sources, 2), groupMatchedPages(hits, 2));
    const texts = pageTexts(sources);
    assert.equal(texts.get('A:a3:0:0')!.body, 'text of A:a3:0:0');
    assert.equal(texts.get('A:a3:0:0')!.page, null);
    assert.equal(pageTexts(hits).size, 0, 'the sort-values form carries no text');
    assert.equal(holdsEveryMatch(sources, 5), true);
    assert.equal(holdsEveryMatch(sources, 4), false, 'budget + 1 hits: more pages matched than were read');
  });
});
