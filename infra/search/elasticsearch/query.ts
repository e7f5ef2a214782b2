import type { estypes } from '@elastic/elasticsearch';
import type { IndexFilter, SearchQuery } from '../../../src/ports/search-index';
import { RECENT_FROM } from '../postgres-search-index';
import { KIND_FILING, KIND_PAGE } from './mapping';

type Q = estypes.QueryDslQueryContainer;

/**
 * The ranking, in Elasticsearch terms, mirroring the Postgres adapter (docs/search.md):
 * a page scores BM25 of the keywords (OR) over body + file name, plus a constant when it holds all
 * of them; the filing's metadata adds half its own match (copied onto every page, so the best page
 * of a filing already carries it); the intent adds a lower-weight OR match that never selects.
 * BM25 is unbounded (typically 2–15 here), unlike ts_rank_cd in [0, 1), so the bonuses are scaled
 * up to keep "all keywords on one page" the dominant signal, as in Postgres.
 */
export const WEIGHTS = {
  /** A page (or the metadata) holding every keyword. */
  allKeywords: 4,
  /** Metadata relative to a document match (Postgres: 0.5). */
  meta: 0.5,
  /** Intent relative to the keywords (Postgres: 0.3). */
  intent: 0.3,
  /** Per extra matching file: `files · ln(files matched)` (Postgres: 0.05 on a [0, 1) rank). */
  files: 0.05,
};

const TEXT_FIELDS = ['body', 'fileName'];

/** The searchable parts of a request (keywords null when they analyse to no term, e.g. only stop words). */
export interface TextQuery {
  keywords: string | null;
  phrases: string[];
  intent: string | null;
}

export function isTextual(t: TextQuery | null): t is TextQuery {
  return !!t && (!!t.keywords || t.phrases.length > 0);
}

const term = (field: string, value: string): Q => ({ term: { [field]: value } });
const terms = (field: string, values: string[]): Q => ({ terms: { [field]: values } });

/** `*` and `?` are wildcard syntax; the contains filter is a literal substring. */
function literalWildcard(s: string): string {
  return `*${s.replace(/[\\*?]/g, (c) => `\\${c}`)}*`;
}

function filterClause(f: IndexFilter): { filter?: Q; mustNot?: Q } {
  switch (f.kind) {
    case 'in':
      return { filter: terms(f.field, f.field === 'state' ? f.values.map((v) => v.toUpperCase()) : f.values) };
    case 'contains':
      return { filter: { wildcard: { [f.field]: { value: literalWildcard(f.value), case_insensitive: true } } } };
    case 'arrayAny':
      // Exclusion also drops filings whose codes are unknown (null or empty), as the Postgres adapter does.
      return f.negate
        ? { filter: { bool: { filter: [{ exists: { field: f.field } }], must_not: [terms(f.field, f.values)] } } }
        : { filter: terms(f.field, f.values) };
    case 'date': {
      if (!f.from && !f.to) return { filter: { exists: { field: f.field } } };
      const range: estypes.QueryDslDateRangeQuery = {};
      if (f.from) range.gte = f.from;
      if (f.to) range.lte = f.to;
      return { filter: { range: { [f.field]: range } } };
    }
    case 'reference':
      return { filter: { bool: { should: f.refs.map((r) => ({ bool: { filter: [term('source', r.source), term('referenceKey', r.reference.toUpperCase())] } })), minimum_should_match: 1 } } };
  }
}

/** Filters, data scope, hidden sources and a tracking-number query: the same selection as the Postgres WHERE clause. */
export function selection(q: SearchQuery): { filter: Q[]; must_not: Q[] } {
  const filter: Q[] = [];
  const mustNot: Q[] = [];
  if (q.dataScope === 'recent') filter.push({ bool: { should: [{ range: { submissionDate: { gte: RECENT_FROM } } }, { bool: { must_not: [{ exists: { field: 'submissionDate' } }] } }], minimum_should_match: 1 } });
  if (q.dataScope === 'historical') filter.push({ range: { submissionDate: { lt: RECENT_FROM } } });
  if (q.excludedSources.length) mustNot.push(terms('source', q.excludedSources));
  for (const f of q.filters) {
    const c = filterClause(f);
    if (c.filter) filter.push(c.filter);
    if (c.mustNot) mustNot.push(c.mustNot);
  }
  if (q.reference) {
    const key = q.reference.value.toUpperCase();
    filter.push(term('source', q.reference.source));
    filter.push(q.reference.mode === 'exact' ? term('referenceKey', key) : { prefix: { referenceKey: key } });
  }
  return { filter, must_not: mustNot };
}

const pageOr = (keywords: string): Q => ({ combined_fields: { query: keywords, fields: TEXT_FIELDS, operator: 'or' } });
const pageAnd = (keywords: string): Q => ({ combined_fields: { query: keywords, fields: TEXT_FIELDS, operator: 'and' } });
const constant = (filter: Q, boost: number): Q => ({ constant_score: { filter, boost } });
const phrase = (p: string): Q => ({ match_phrase: { body: p } });

/**
 * The page-level text clauses: what selects a page (must) and what only ranks it (should).
 * `all`: the page must hold every keyword (the AND tier); the score is the same either way.
 */
function pageClauses(t: TextQuery, all = false): { must: Q[]; should: Q[] } {
  const must: Q[] = [...(t.keywords ? [all ? { bool: { must: [pageOr(t.keywords)], filter: [pageAnd(t.keywords)] } } : pageOr(t.keywords)] : []), ...t.phrases.map(phrase)];
  const should: Q[] = [];
  if (t.keywords) should.push(constant({ combined_fields: { query: t.keywords, fields: TEXT_FIELDS, operator: 'and' } }, WEIGHTS.allKeywords));
  if (t.intent) should.push({ combined_fields: { query: t.intent, fields: TEXT_FIELDS, operator: 'or', boost: WEIGHTS.intent } });
  return { must, should };
}

/**
 * Ranks every document (filing and page) of the selected filings; `collapse` on filingId then keeps
 * each filing's best. With honoured phrases only pages count (a phrase must occur in one page), as in Postgres.
 */
export function rankingQuery(q: SearchQuery, t: TextQuery, all = false): Q {
  const sel = selection(q);
  const page = pageClauses(t, all);
  const useMeta = !!t.keywords && !t.phrases.length;
  if (!useMeta) return { bool: { filter: [...sel.filter, term('kind', KIND_PAGE)], must_not: sel.must_not, must: page.must, should: page.should } };
  const keywords = t.keywords!;
  const metaOr: Q = all
    ? { bool: { must: [{ match: { meta: { query: keywords, boost: WEIGHTS.meta } } }], filter: [{ match: { meta: { query: keywords, operator: 'and' } } }] } }
    : { match: { meta: { query: keywords, boost: WEIGHTS.meta } } };
  const metaAll = constant({ match: { meta: { query: keywords, operator: 'and' } } }, WEIGHTS.meta * WEIGHTS.allKeywords);
  // A filing document has no body: it matches by metadata alone. A page matches by its text or its filing's metadata.
  const selects: Q = { bool: { should: [{ bool: { must: page.must, should: page.should } }, metaOr], minimum_should_match: 1 } };
  return { bool: { filter: sel.filter, must_not: sel.must_not, must: [selects], should: [metaAll] } };
}

/** Pages of the given filings (and files) that match the text: matched files, their counts, passages. */
export function pageQuery(t: TextQuery, filingIds: string[], fileIds?: string[], withIntent = true): Q {
  const page = pageClauses(withIntent ? t : { ...t, intent: null });
  const filter: Q[] = [term('kind', KIND_PAGE), terms('filingId', filingIds), ...(fileIds ? [terms('fileId', fileIds)] : [])];
  return { bool: { filter, must: page.must, should: page.should } };
}

/** Filters alone select (a tracking number, or a query without searchable words): filing documents. */
export function filterOnlyQuery(q: SearchQuery): Q {
  const sel = selection(q);
  return { bool: { filter: [...sel.filter, term('kind', KIND_FILING)], must_not: sel.must_not } };
}
