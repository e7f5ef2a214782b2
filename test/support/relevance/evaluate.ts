import type { SearchIndex } from '../../../src/ports/search-index';
import { buildSearchQuery } from '../../../queries/search/search-query';
import type { CorpusFiling } from './corpus';
import { RELEVANCE_QUERIES, type LabelledQuery } from './queries';

export interface RelevanceReport {
  queries: number;
  /** Mean reciprocal rank of the first relevant filing (0 when none in the top 10). */
  mrr: number;
  /** Mean share of the relevant filings found in the top 10. */
  recallAt10: number;
  misses: { query: string; rank: number | null; top: string[] }[];
}

/** Runs the labelled queries against an index holding the corpus, ranked by relevance (all data scopes, serff visible). */
export async function evaluateRelevance(index: SearchIndex, corpus: CorpusFiling[], queries: LabelledQuery[] = RELEVANCE_QUERIES): Promise<RelevanceReport> {
  const keyOf = new Map(corpus.map((c) => [c.filing.id, c.key]));
  let rrSum = 0;
  let recallSum = 0;
  const misses: RelevanceReport['misses'] = [];
  for (const lq of queries) {
    const q = buildSearchQuery({ ...lq.body, sort: [{ field: 'relevance', direction: 'desc' }], dataScope: 'all', limit: 10 }, { canViewSerff: true }, { offset: 0 });
    const page = await index.search(q);
    const keys = page.hits.map((h) => keyOf.get(h.filing.id) ?? h.filing.id);
    const firstRank = keys.findIndex((k) => lq.relevant.includes(k));
    rrSum += firstRank >= 0 ? 1 / (firstRank + 1) : 0;
    recallSum += lq.relevant.filter((k) => keys.includes(k)).length / lq.relevant.length;
    if (firstRank !== 0) misses.push({ query: lq.body.query, rank: firstRank >= 0 ? firstRank + 1 : null, top: keys.slice(0, 3) });
  }
  return { queries: queries.length, mrr: rrSum / queries.length, recallAt10: recallSum / queries.length, misses };
}
