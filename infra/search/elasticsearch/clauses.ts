import type { estypes } from '@elastic/elasticsearch';
import { invalidRequest } from '../../../src/domain/errors';
import { ELASTICSEARCH_MAX_CLAUSES, wordCount } from '../../../src/ports/search-bounds';

type Q = estypes.QueryDslQueryContainer;

const list = <T>(x: T | T[] | undefined): T[] => (x === undefined ? [] : Array.isArray(x) ? x : [x]);

/** Words of a `match` or `match_phrase` (per field: the query text, or an object holding it). */
const fieldWords = (values: unknown[]): number =>
  values.reduce<number>((n, m) => n + Math.max(1, wordCount(String(typeof m === 'object' && m !== null ? (m as { query: unknown }).query : m))), 0);

/**
 * An upper estimate of the leaf clauses Elasticsearch counts for a query (Lucene counts the leaves of the
 * rewritten query: a term of a `combined_fields` once per field, each word of a `match` or `match_phrase`
 * once; `terms`, `range`, `exists`, `wildcard` and `prefix` once however many values they hold).
 */
export function leafClauses(q: Q): number {
  if (q.bool) return [q.bool.must, q.bool.should, q.bool.filter, q.bool.must_not].reduce<number>((n, part) => n + list(part).reduce((m, c) => m + leafClauses(c), 0), 0);
  if (q.constant_score) return leafClauses(q.constant_score.filter);
  if (q.combined_fields) return Math.max(1, wordCount(q.combined_fields.query)) * q.combined_fields.fields.length;
  if (q.match) return fieldWords(Object.values(q.match));
  if (q.match_phrase) return fieldWords(Object.values(q.match_phrase));
  return 1;
}

/** Refuses, as the search cost bound's coded 400, a query Elasticsearch could refuse for its clause count. */
export function assertClauseBound(q: Q): Q {
  const n = leafClauses(q);
  if (n > ELASTICSEARCH_MAX_CLAUSES) {
    const message = `The search expands to ${n} query clauses; at most ${ELASTICSEARCH_MAX_CLAUSES} (the search cost bound). Use fewer words or filters.`;
    throw invalidRequest(message, [{ location: 'body', path: ['query'], code: 'invalid_value', message }]);
  }
  return q;
}
