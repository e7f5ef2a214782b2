import type { estypes } from '@elastic/elasticsearch';

/**
 * Ranking filings by their best document without `collapse`. A collapse (like an exact hit count)
 * makes Lucene score every matching document; a plain top-k sorted by score lets block-max WAND skip
 * the documents that cannot enter the top k, which for common words is nearly all of them. So the
 * ranking asks for the best `pagesFor(size)` documents ordered by (score desc, filingId asc), the
 * same order the collapse used, and keeps each filing's first (best) document here.
 *
 * Exactness: a document ordered after the k-th one belongs to a filing whose best document is ordered
 * after it too, unless that filing already appeared among the k. So the first `size` distinct filings
 * of the k documents are exactly the first `size` of the collapse. When fewer than k documents came
 * back every match was seen. Only when k documents came back but hold fewer than `size` filings is
 * the answer unknown: the caller then falls back to the collapse.
 */

/** Elasticsearch's max_result_window (INDEX_SETTINGS): a top-k cannot ask for more. */
export const MAX_PAGES = 10_000;
/** Documents fetched per filing wanted: a filing's matching pages crowd the top k together. */
export const PAGES_PER_FILING = 8;

export function pagesFor(size: number): number {
  return Math.min(MAX_PAGES, Math.max(size * PAGES_PER_FILING, 500));
}

export interface BestFiling {
  filingId: string;
  score: number;
  hit: estypes.SearchHit;
}

export interface BestFilings {
  filings: BestFiling[];
  /** false: k documents came back holding fewer than `size` filings, so the ranking is unknown beyond them. */
  complete: boolean;
}

/** Each filing's best document, in hit order, at most `size` filings. `k` is the size asked for. */
export function bestFilings(hits: estypes.SearchHit[], size: number, k: number, filingIdOf: (h: estypes.SearchHit) => string): BestFilings {
  const seen = new Set<string>();
  const filings: BestFiling[] = [];
  for (const hit of hits) {
    const filingId = filingIdOf(hit);
    if (seen.has(filingId)) continue;
    seen.add(filingId);
    filings.push({ filingId, score: hit._score ?? Number(hit.sort?.[0] ?? 0), hit });
    if (filings.length >= size) return { filings, complete: true };
  }
  return { filings, complete: hits.length < k };
}
