import assert from 'node:assert/strict';
import type { estypes } from '@elastic/elasticsearch';
import { bestFilings, pagesFor, MAX_PAGES } from '../../infra/search/elasticsearch/best-filings';

describe('ElasticsearchSearchIndex: filings ranked from top-k documents instead of a collapse', () => {
  // Documents as Elasticsearch returns them: by score desc, then filing id asc.
  const hit = (filingId: string, score: number): estypes.SearchHit => ({ _index: 'i', _score: score, fields: { filingId: [filingId] } });
  const of = (h: estypes.SearchHit) => (h.fields!.filingId as string[])[0];
  const hits = [hit('a', 9), hit('a', 8), hit('b', 7), hit('a', 6), hit('c', 6), hit('b', 5)];

  it('rule: each filing counts once, by its best (first) document, in hit order', () => {
    const r = bestFilings(hits, 10, 100, of);
    assert.deepEqual(r.filings.map((f) => [f.filingId, f.score]), [['a', 9], ['b', 7], ['c', 6]]);
    assert.equal(r.complete, true, 'fewer documents than asked: every match was seen');
  });

  it('rule: enough filings among the k documents is complete; k documents with too few filings is not', () => {
    assert.deepEqual(bestFilings(hits, 2, hits.length, of), { complete: true, filings: bestFilings(hits, 2, 100, of).filings });
    const r = bestFilings(hits, 4, hits.length, of);
    assert.equal(r.complete, false);
    assert.equal(r.filings.length, 3);
  });

  it('asks for several documents per filing wanted, within the result window', () => {
    assert.ok(pagesFor(101) >= 101 * 5);
    assert.equal(pagesFor(1_000_000), MAX_PAGES);
  });
});
