import assert from 'node:assert/strict';
import { AppError } from '../../src/domain/errors';
import { ELASTICSEARCH_MAX_CLAUSES, SEARCH_BOUNDS, assertWithinSearchBounds, searchBoundError } from '../../src/ports/search-bounds';
import type { IndexFilter, SearchQuery } from '../../src/ports/search-index';
import { assertClauseBound, leafClauses } from '../../infra/search/elasticsearch/clauses';
import { pageQuery, rankingQuery } from '../../infra/search/elasticsearch/query';

const words = (n: number, prefix = 'w') => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
const query = (o: Partial<SearchQuery> = {}): SearchQuery => ({
  keywords: 'wildfire',
  phrases: [],
  intent: null,
  reference: null,
  filters: [],
  dataScope: 'recent',
  excludedSources: ['serff'],
  sort: [{ field: 'relevance', direction: 'desc' }],
  window: 1200,
  offset: 0,
  limit: 50,
  ...o,
});
const hundred = (f: (i: number) => string) => Array.from({ length: 100 }, (_, i) => f(i));
/** The filters that cost Elasticsearch the most leaves each, 50 of them (the endpoint's maximum), every set at 100 values. */
const heaviestFilters: IndexFilter[] = Array.from({ length: 50 }, (_, i): IndexFilter => {
  switch (i % 5) {
    case 0:
      return { kind: 'reference', refs: hundred((k) => ({ source: k % 2 ? 'serff' : 'florida_irfs', reference: `REF-${k}` }) as never) as never };
    case 1:
      return { kind: 'group', naicGroupCodes: hundred(String), naicCompanyCodes: hundred((k) => String(10000 + k)) };
    case 2:
      return { kind: 'arrayAny', field: 'carrierIds', values: hundred((k) => `carrier_${k}`), negate: true };
    case 3:
      return { kind: 'date', field: 'submissionDate', from: '2020-01-01', to: '2024-01-01' };
    default:
      return { kind: 'in', field: 'state', values: hundred((k) => `S${k}`) };
  }
});

const code400 = (e: AppError | null) => {
  assert.ok(e, 'expected the bound to refuse the query');
  assert.equal(e.status, 400);
  assert.equal(e.code, 'invalid_request');
  return e.details[0];
};

describe('search cost bound (shared by the Postgres and Elasticsearch adapters)', () => {
  it(`rule: more than ${SEARCH_BOUNDS.phrases} quoted phrases are a 400 invalid_request naming the bound at body.query`, () => {
    assert.equal(searchBoundError(query({ keywords: '', phrases: Array.from({ length: SEARCH_BOUNDS.phrases }, (_, i) => `w${i}a w${i}b`) })), null);
    const d = code400(searchBoundError(query({ keywords: '', phrases: Array.from({ length: SEARCH_BOUNDS.phrases + 1 }, (_, i) => `w${i}a w${i}b`) })));
    assert.deepEqual([d.location, d.path, d.code], ['body', ['query'], 'invalid_value']);
    assert.match(d.message, new RegExp(`At most ${SEARCH_BOUNDS.phrases} quoted phrases`));
  });

  it(`rule: more than ${SEARCH_BOUNDS.words} words in query and intent together are a 400 naming the bound and the field`, () => {
    assert.equal(searchBoundError(query({ keywords: words(SEARCH_BOUNDS.words - 10), intent: words(10, 'i') })), null);
    const q = code400(searchBoundError(query({ keywords: words(SEARCH_BOUNDS.words + 1) })));
    assert.deepEqual(q.path, ['query']);
    assert.match(q.message, new RegExp(`At most ${SEARCH_BOUNDS.words} words`));
    // The query alone is within the bound: the intent tipped it over.
    assert.deepEqual(code400(searchBoundError(query({ keywords: words(60), intent: words(10, 'i') }))).path, ['intent']);
    // Phrase words count as words too.
    assert.deepEqual(code400(searchBoundError(query({ keywords: '', phrases: [words(SEARCH_BOUNDS.words + 1)] }))).path, ['query']);
    assert.throws(() => assertWithinSearchBounds(query({ keywords: words(SEARCH_BOUNDS.words + 1) })), (e: unknown) => e instanceof AppError && e.status === 400);
  });

  it('rule: a tracking-number query has no words to bound', () => {
    assert.equal(searchBoundError(query({ keywords: '', reference: { value: 'ACME-123456789', mode: 'exact', source: 'serff' } })), null);
  });

  it(`rule: the heaviest search within the bound stays under Elasticsearch's ${ELASTICSEARCH_MAX_CLAUSES}-clause floor (ranking and page queries)`, () => {
    const heaviest = [
      query({ keywords: words(SEARCH_BOUNDS.words), filters: heaviestFilters }),
      query({ keywords: words(SEARCH_BOUNDS.words - 20), intent: words(20, 'i'), filters: heaviestFilters }),
      query({ keywords: '', phrases: Array.from({ length: SEARCH_BOUNDS.phrases }, (_, i) => words(4, `p${i}x`)), filters: heaviestFilters }),
    ];
    for (const q of heaviest) {
      assertWithinSearchBounds(q);
      const text = { keywords: q.keywords || null, phrases: q.phrases, intent: q.intent };
      for (const all of [true, false]) {
        const n = leafClauses(rankingQuery(q, text, all));
        assert.ok(n <= ELASTICSEARCH_MAX_CLAUSES, `ranking query of ${n} leaves`);
      }
      assert.ok(leafClauses(pageQuery(text, hundred(String))) <= ELASTICSEARCH_MAX_CLAUSES);
    }
  });

  it('rule: 100 tracking-number filter values cost Elasticsearch a few leaf clauses, not two per value', () => {
    const q = query({ keywords: '', filters: [heaviestFilters[0]] });
    assert.ok(leafClauses(rankingQuery(q, { keywords: null, phrases: ['a b'], intent: null }, true)) <= 10);
  });

  it('rule: a query Elasticsearch could refuse for its clause count is the coded 400, not an engine error', () => {
    const big = rankingQuery(query(), { keywords: words(200), phrases: [], intent: null }, true);
    assert.ok(leafClauses(big) > ELASTICSEARCH_MAX_CLAUSES);
    assert.throws(() => assertClauseBound(big), (e: unknown) => e instanceof AppError && e.status === 400 && e.details[0].path[0] === 'query');
    const small = rankingQuery(query(), { keywords: 'wildfire surcharge', phrases: [], intent: null }, true);
    assert.equal(assertClauseBound(small), small);
  });
});
