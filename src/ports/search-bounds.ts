import { invalidRequest } from '../domain/errors';
import type { SearchQuery } from './search-index';

/**
 * The cost bound of one search, the same for every SearchIndex adapter so that an answer does not depend on
 * the engine behind it (docs/search.md, "Cost bound").
 *
 * - Quoted phrases: each honoured phrase is a page check on the candidates (Postgres) or a phrase query
 *   (Elasticsearch). Postgres planned one subquery per phrase before they travelled as one array, and 100
 *   phrases grew one backend past 2 GB; the bound keeps the phrase work a small multiple of the window.
 * - Words: the words of `query` and `intent` together. Elasticsearch refuses a query of more leaf clauses than
 *   its search thread pool and heap allow, never fewer than 1,024 (8.x; 7.x: 1,024 by default); the ranking
 *   query spends up to ELASTICSEARCH_CLAUSES_PER_WORD leaves on each keyword, so 64 words and the heaviest 50
 *   filters stay under that floor (test/platform/search-bounds.unit.test.ts proves it on the built query).
 *   Postgres answers 64-word AND/OR tsqueries in the time of a short one.
 *
 * Beyond either bound the request is a 400 `invalid_request` whose detail names the bound at `body.query`
 * (or `body.intent`); a tracking-number query has no words to bound.
 */
export const SEARCH_BOUNDS = {
  phrases: 16,
  words: 64,
} as const;

/** Elasticsearch's smallest limit on the leaf clauses of one query (the 8.x floor, the 7.x default). */
export const ELASTICSEARCH_MAX_CLAUSES = 1024;

/** Words as both engines' parsers see them at most: runs of letters or digits (a count, never a parse). */
export function wordCount(text: string): number {
  return text.match(/[\p{L}\p{N}]+/gu)?.length ?? 0;
}

export interface SearchCost {
  phrases: number;
  words: number;
  queryWords: number;
}

/** What a query costs in the units of SEARCH_BOUNDS. */
export function searchCost(q: Pick<SearchQuery, 'keywords' | 'phrases' | 'intent' | 'reference'>): SearchCost {
  if (q.reference) return { phrases: 0, words: 0, queryWords: 0 };
  const queryWords = wordCount(q.keywords) + q.phrases.reduce((n, p) => n + wordCount(p), 0);
  return { phrases: q.phrases.length, words: queryWords + wordCount(q.intent ?? ''), queryWords };
}

/** The coded 400 for a query beyond SEARCH_BOUNDS, or null when it is within them. */
export function searchBoundError(q: Pick<SearchQuery, 'keywords' | 'phrases' | 'intent' | 'reference'>) {
  const cost = searchCost(q);
  if (cost.phrases > SEARCH_BOUNDS.phrases) {
    const message = `At most ${SEARCH_BOUNDS.phrases} quoted phrases per search (the search cost bound); this query has ${cost.phrases}.`;
    return invalidRequest(message, [{ location: 'body', path: ['query'], code: 'invalid_value', message }]);
  }
  if (cost.words > SEARCH_BOUNDS.words) {
    // Blame the intent only when the query alone is within the bound.
    const field = cost.queryWords > SEARCH_BOUNDS.words || !q.intent ? 'query' : 'intent';
    const message = `At most ${SEARCH_BOUNDS.words} words in query and intent together (the search cost bound); this search has ${cost.words}.`;
    return invalidRequest(message, [{ location: 'body', path: [field], code: 'invalid_value', message }]);
  }
  return null;
}

/** Adapters call this before they build anything: a query beyond the bound never reaches the engine. */
export function assertWithinSearchBounds(q: SearchQuery): void {
  const e = searchBoundError(q);
  if (e) throw e;
}
