import type { estypes } from '@elastic/elasticsearch';
import type { IndexFilter, SearchQuery } from '../../../src/ports/search-index';
import { RECENT_FROM } from '../postgres-search-index';
import { KIND_FILING, KIND_PAGE } from './mapping';

type Q = estypes.QueryDslQueryContainer;

/**
 * The ranking, in Elasticsearch terms, mirroring the Postgres adapter (docs/search.md): a filing scores
 * BM25 of the keywords (OR) over all its text, file names and metadata as one field (`combined_fields`,
 * metadata and names weighted up as Postgres' A and B weights), plus a constant when it holds all of them
 * (the AND tier), plus half the metadata's own match, plus the intent's OR match at a lower weight, which
 * never selects. BM25 is unbounded (typically 2–15 here), unlike ts_rank in [0, 1), so the constants are
 * scaled up to keep "holds every keyword" the dominant signal, as in Postgres.
 */
export const WEIGHTS = {
  /** The filing (or its metadata) holding every keyword. */
  allKeywords: 4,
  /** Metadata relative to the text (Postgres: 0.5). */
  meta: 0.5,
  /** Intent relative to the keywords (Postgres: 0.3). */
  intent: 0.3,
};

/** The filing document's searchable text: metadata words count as Postgres' weight A, file names as B, text as D. */
const FILING_FIELDS = ['text', 'fileName^2', 'meta^3'];
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
    case 'group': {
      // Either code set may be empty (a group without a NAIC group code, or without coded members), never both.
      const either = [...(f.naicGroupCodes.length ? [terms('naicGroupCode', f.naicGroupCodes)] : []), ...(f.naicCompanyCodes.length ? [terms('naicCompanyCodes', f.naicCompanyCodes)] : [])];
      return { filter: either.length ? { bool: { should: either, minimum_should_match: 1 } } : { match_none: {} } };
    }
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
    case 'reference': {
      // One `terms` per source, not a pair of terms per reference: 100 references are 4 leaf clauses, not 200 (search-bounds.ts).
      const bySource = new Map<string, string[]>();
      for (const r of f.refs) bySource.set(r.source, [...(bySource.get(r.source) ?? []), r.reference.toUpperCase()]);
      const should = [...bySource].map(([source, keys]) => ({ bool: { filter: [term('source', source), terms('referenceKey', keys)] } }));
      return { filter: { bool: { should, minimum_should_match: 1 } } };
    }
  }
}

/** Filters, data scope, hidden sources and a tracking-number query: the same selection as the Postgres WHERE clause. */
export function selection(q: SearchQuery): { filter: Q[]; must_not: Q[] } {
  const filter: Q[] = [];
  const mustNot: Q[] = [];
  // Recent = not historical (a filing without a submission date is recent): the range then covers the ~20% of
  // filings before 2018 instead of the ~80% after, and no `exists` clause; profiled as a third of a ranking query.
  if (q.dataScope === 'recent') mustNot.push({ range: { submissionDate: { lt: RECENT_FROM } } });
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

const constant = (filter: Q, boost: number): Q => ({ constant_score: { filter, boost } });

/**
 * What makes a page match (any keyword, in its text or file name, and every phrase) and how it ranks
 * among its filing's pages (plus a constant when it holds every keyword, plus the intent): which files
 * matched, best first, and which pages passages are cut from.
 */
function pageClauses(t: TextQuery): { must: Q[]; should: Q[] } {
  const must: Q[] = [...(t.keywords ? [{ combined_fields: { query: t.keywords, fields: TEXT_FIELDS, operator: 'or' as const } }] : []), ...t.phrases.map((p) => ({ match_phrase: { body: p } }))];
  const should: Q[] = [];
  if (t.keywords) should.push(constant({ combined_fields: { query: t.keywords, fields: TEXT_FIELDS, operator: 'and' } }, WEIGHTS.allKeywords));
  if (t.intent) should.push({ combined_fields: { query: t.intent, fields: TEXT_FIELDS, operator: 'or', boost: WEIGHTS.intent } });
  return { must, should };
}

/**
 * Ranks filing documents (one per filing, holding all its text): a plain top-k, no collapse. `all`: the
 * filing must hold every keyword somewhere (the AND tier); the score is the same either way. An honoured
 * phrase must occur within one page: `text` holds one array element per page segment, and the position gap
 * between elements keeps a phrase from spanning two.
 */
export function rankingQuery(q: SearchQuery, t: TextQuery, all = false): Q {
  const sel = selection(q);
  const must: Q[] = t.phrases.map((p) => ({ match_phrase: { text: p } }));
  const should: Q[] = [];
  if (t.keywords) {
    const or: Q = { combined_fields: { query: t.keywords, fields: FILING_FIELDS, operator: 'or' } };
    const and: Q = { combined_fields: { query: t.keywords, fields: FILING_FIELDS, operator: 'and' } };
    must.push(all ? { bool: { must: [or], filter: [and] } } : or);
    should.push(constant(and, WEIGHTS.allKeywords));
    should.push({ match: { meta: { query: t.keywords, boost: WEIGHTS.meta } } });
    should.push(constant({ match: { meta: { query: t.keywords, operator: 'and' } } }, WEIGHTS.meta * WEIGHTS.allKeywords));
  }
  if (t.intent) should.push({ combined_fields: { query: t.intent, fields: FILING_FIELDS, operator: 'or', boost: WEIGHTS.intent } });
  return { bool: { filter: [...sel.filter, term('kind', KIND_FILING)], must_not: sel.must_not, must, should } };
}

/** Pages of the given filings (and files) that match the text: matched files, their counts, passages. */
export function pageQuery(t: TextQuery, filingIds: string[], fileIds?: string[]): Q {
  const page = pageClauses(t);
  const filter: Q[] = [term('kind', KIND_PAGE), terms('filingId', filingIds), ...(fileIds ? [terms('fileId', fileIds)] : [])];
  return { bool: { filter, must: page.must, should: page.should } };
}

/** Filters alone select (a tracking number, or a query without searchable words): filing documents. */
export function filterOnlyQuery(q: SearchQuery): Q {
  const sel = selection(q);
  return { bool: { filter: [...sel.filter, term('kind', KIND_FILING)], must_not: sel.must_not } };
}
