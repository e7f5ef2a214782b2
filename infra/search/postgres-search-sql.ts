import type { CatalogFilingFields } from '../../src/domain/events/catalog';
import { raw, type Sql } from '../postgres/sql';
import type { IndexFilter, SearchHit, SearchQuery, SortKey } from '../../src/ports/search-index';

/** The text search configuration: English stemming and stop words (filings are in English). */
export const CONFIG = 'english';
/** Segment size of a page row: far below tsvector's 1 MB limit, and small enough for ts_headline. */
export const SEGMENT_CHARS = 20_000;
export const INSERT_BATCH = 500;
/** Request texts whose tsqueries are kept (a search and its passages, and every later page, need the same ones). */
export const TSQUERIES_CACHED = 1_000;
/** ts_rank / ts_rank_cd normalization 1|32: divide by 1 + log(length), then scale into [0, 1). */
export const NORM = 33;
/** Weight of the intent's terms: a secondary signal, below one keyword hit. */
export const INTENT_WEIGHT = 0.3;
/** Weight of a match in the filing's metadata (company, product, type, description) relative to a document match. */
export const META_WEIGHT = 0.5;
/**
 * Bounded work per search: at most this many filings per tier are scored, whatever the corpus size,
 * so a query of words common across the corpus costs the same at 20,000 or 100,000 filings: five
 * times the candidate window (500 for the window of 100 with passages), at most the large window
 * plus one (enough to fill it and to know that more matched; scoring is most of a common query's cost).
 */
export const FILING_CAP = 1_201;
export const capFor = (window: number) => Math.min(FILING_CAP, window * 5);
/**
 * Occurrences of a word kept per filing in the summary vector: enough for a term-frequency signal
 * that saturates, small enough that scoring a filing reads a few kilobytes.
 */
export const SUMMARY_OCCURRENCES = 4;
/**
 * Rows up to this size stay in the heap uncompressed (Postgres' default compresses past 2 kB): a search
 * reads the summary of every candidate, and decompressing it cost more than the scoring itself.
 */
export const ROW_TARGET = 8160;
/**
 * The length ts_rank's normalization 1 divides by (every lexeme's occurrences, at least 1 each), stored
 * with the summary so ranking need not walk the whole vector per candidate.
 */
export const SUMMARY_LENGTH_SQL = (v: string) => `(select coalesce(sum(greatest(cardinality(u.positions), 1)), 0)::int from unnest(${v}) u)`;
/**
 * The summary index is split into SLICES partial GIN indexes by a hash of the filing id, scanned one after
 * the other until a tier has its candidates: a bitmap scan cannot stop early, and for words most filings hold
 * (rate, loss, change) building the bitmap of every match cost more than the rest of the search; one slice
 * holds enough of them. Rare words read every slice, each small.
 */
export const SLICES = 8;
export const sliceOf = (idColumn: string) => `(get_byte(uuid_send(${idColumn}), 15) & ${SLICES - 1})`;
/**
 * Filter marks: lexemes added to a filing's summary for the filters most searches carry (its state, and
 * whether dataScope `recent` holds it), so the summary index applies them in the same scan as the words and
 * only filings that pass are read from the heap. With the filter as a column condition beside the index,
 * a common word under a one-state filter read five to ten rows for every candidate kept. A mark holds a space,
 * which no lexeme parsed from text can (the parser splits at spaces), and carries no position: it never
 * matches a keyword and adds nothing to a rank (doc_len is the length without the marks).
 */
export const STATE_MARK = 'state ';
export const RECENT_MARK = 'scope recent';
/** The marks of the row `f` as a tsvector; dataScope `recent` is `submission_date >= RECENT_FROM` or no date. */
export const FILTER_MARKS_SQL = (f: string) =>
  `array_to_tsvector(array_remove(array['${STATE_MARK}' || ${f}.state, case when coalesce(${f}.submission_date, 'infinity') >= '${RECENT_FROM}' then '${RECENT_MARK}' end], null))`;
/** A lexeme in tsquery text form. */
export const lexeme = (x: string) => `'${x.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** Past this many characters of text a filing's summary keeps one occurrence per word (a tsvector value is limited to 1 MB). */
export const SUMMARY_WIDE_CHARS = 500_000;

export interface Row {
  filing_id: string;
  score: number;
  record: CatalogFilingFields;
  matches: SearchHit['matches'] | null;
  n: number;
  capped: boolean;
}
/** dataScope `recent` starts here (shared with the Elasticsearch adapter). */
export const RECENT_FROM = '2018-01-01';

/** The catalog filing record of the spec, in its field order; `description` is not part of search results. */
export const RECORD_FIELDS: (keyof CatalogFilingFields)[] = [
  'id', 'source', 'sourceReference', 'state', 'companyName', 'naicCompanyCodes', 'naicGroupCode', 'carrierIds', 'groupId', 'productName',
  'typeOfInsurance', 'subTypeOfInsurance', 'toiCode', 'subToiCode', 'filingType', 'sourceStatus', 'submissionDate', 'dispositionDate',
  'businessType', 'normalizedOutcome', 'filingTypeNormalized', 'stateStatusChangedDate',
];

export function recordOf(f: CatalogFilingFields): Omit<CatalogFilingFields, 'description'> {
  const out: Record<string, unknown> = {};
  for (const k of RECORD_FIELDS) out[k] = f[k] ?? null;
  return out as Omit<CatalogFilingFields, 'description'>;
}

/** Postgres rejects NUL in text; long pages become several rows with the same page number (Elasticsearch: several documents). */
export function segments(text: string): string[] {
  const clean = text.replaceAll('\u0000', ' ');
  if (clean.length <= SEGMENT_CHARS) return [clean];
  const out: string[] = [];
  let i = 0;
  while (i < clean.length) {
    let end = Math.min(clean.length, i + SEGMENT_CHARS);
    if (end < clean.length) {
      const space = clean.lastIndexOf(' ', end);
      if (space > i + SEGMENT_CHARS / 2) end = space;
    }
    out.push(clean.slice(i, end));
    i = end;
  }
  return out;
}

export const COLUMN: Record<string, string> = {
  state: 'f.state',
  toiCode: 'f.toi_code',
  subToiCode: 'f.sub_toi_code',
  normalizedOutcome: 'f.normalized_outcome',
  filingTypeNormalized: 'f.filing_type_normalized',
  source: 'f.source',
  companyName: 'f.company_name',
  productName: 'f.product_name',
  carrierIds: 'f.carrier_ids',
  naicCompanyCodes: 'f.naic_company_codes',
  submissionDate: 'f.submission_date',
  dispositionDate: 'f.disposition_date',
  stateStatusChangedDate: 'f.state_status_changed_date',
};

/**
 * A parallel-unsafe function (harmless, evaluated once per returned row) keeps the whole statement off
 * parallel plans. The generic plan of the prepared statement otherwise ran the slices as a Parallel Append:
 * two worker processes per search on a 2-core machine, every slice scanned instead of the first ones, and
 * candidates in whatever order the workers delivered them.
 */
export const SERIAL_ONLY = 'current_schema() as serial_only';

export const lit = raw;

/** The tsqueries of a request (as text): AND and OR of the keywords, each phrase (positional, and as the AND of its words), the intent's OR. */
export interface TsQueries {
  and: string | null;
  or: string | null;
  phrases: string[];
  phraseWords: string[];
  intent: string | null;
}

/** Columns a candidate carries: what sorting the window needs, without reading the record. */
export const SORT_COLUMNS = 'f.filing_id, f.submission_date, f.disposition_date, f.state_status_changed_date, f.company_name, f.state';
/** The candidate column each sort field orders by. */
export const SORT_COLUMN: Record<SortKey['field'], string> = {
  relevance: 'score',
  submissionDate: 'submission_date',
  dispositionDate: 'disposition_date',
  stateStatusChangedDate: 'state_status_changed_date',
  companyName: 'company_name',
  state: 'state',
};
/** The sort keys before the first relevance key: what orders the window without any score. */
export const leadingMetadataKeys = (sort: SortKey[]): SortKey[] => {
  const i = sort.findIndex((k) => k.field === 'relevance');
  return i < 0 ? sort : sort.slice(0, i);
};
/**
 * Whether the sort, not the scores, decides the window: a metadata sort comes first and the tier cap is
 * the window plus one (the large window), so scoring could change the window's filings by one at most.
 */
export const sortDecidesWindow = (q: SearchQuery): boolean => leadingMetadataKeys(q.sort).length > 0 && capFor(q.window) === q.window + 1;

/** A filter the filter marks apply exactly (the state mark is the row's state column, both upper case). */
export const isMarked = (f: IndexFilter): boolean => f.kind === 'in' && f.field === 'state';

/**
 * The filter marks a text query's summary match must also hold: the index applies these filters with the
 * words. The state filter is then left out of the conditions (`isMarked`); dataScope stays as a condition too.
 */
export function filterMarks(q: SearchQuery): string[] {
  const out: string[] = [];
  if (q.dataScope === 'recent') out.push(lexeme(RECENT_MARK));
  if (q.dataScope === 'historical') out.push(`!${lexeme(RECENT_MARK)}`);
  for (const f of q.filters) if (isMarked(f) && f.kind === 'in') out.push(f.values.map((v) => lexeme(STATE_MARK + v.toUpperCase())).join(' | '));
  return out;
}

/** The pieces of a text query's tiers that both ways of cutting the window share. */
export interface Tiers {
  /** The raw ranks of a summary row `f`: rk, ri, len, meta. */
  ranks: Sql;
  /** A candidate's sort columns and raw ranks. */
  scoredCols: Sql;
  orTier: boolean;
  cap: Sql;
  sliced(cols: Sql, cond: Sql): Sql;
  andCond: Sql;
  orCond: Sql;
  inOnePage: Sql;
}
