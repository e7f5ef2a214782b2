import type { estypes } from '@elastic/elasticsearch';

/**
 * One Elasticsearch index holds two kinds of documents:
 * - `filing`: what ranks. The filing's metadata, its file names and ALL its text (`text`: one array
 *   element per page segment, so a phrase never spans two pages), its catalog record (returned as is)
 *   and the ids of its page documents (so a new version can delete pages that no longer exist: there
 *   is no _delete_by_query). Ranking is a plain top-k over these, one document per filing: no collapse.
 * - `page`: one page (or 20,000-character segment) of one file: its filing and file ids, file name,
 *   page number and text. Read only for the filings of a returned page: which files matched, their
 *   best pages, and the text passages are cut from.
 */
export const KIND_FILING = 'filing';
export const KIND_PAGE = 'page';

/** English analysis: the `english` analyzer (stemming, stop words) on every searchable text. */
const english = { type: 'text', analyzer: 'english' } as const;
const keyword = { type: 'keyword' } as const;
const date = { type: 'date', format: 'yyyy-MM-dd' } as const;
/** Kept in `_source` only: neither searched nor aggregated. */
const stored = { type: 'keyword', index: false, doc_values: false } as const;

export const INDEX_SETTINGS: estypes.IndicesIndexSettings = {
  number_of_shards: 1,
  number_of_replicas: 0,
  // Every write (upsert, remove) ends with an explicit refresh for read-your-writes; a periodic one on
  // top would only cut more small segments while the projector writes batch after batch.
  refresh_interval: '-1',
  // Collapse and the page window of 1,200 filings stay far below it; explicit so a change is deliberate.
  max_result_window: 10_000,
  // Pages are segmented at 20,000 characters, so highlighting never meets the 1,000,000 default.
};

export const INDEX_MAPPINGS: estypes.MappingTypeMapping = {
  dynamic: 'strict',
  // A filing's `text` is indexed only: keeping a second copy of every page in _source would double the
  // stored bytes, and the passages read the page documents.
  _source: { excludes: ['text'] },
  properties: {
    kind: keyword,
    filingId: keyword,
    // Filter and sort fields (filing documents).
    source: keyword,
    /** The native reference upper-cased: exact and prefix tracking-number matches (SERFF is case-insensitive). */
    referenceKey: keyword,
    state: keyword,
    companyName: keyword,
    productName: keyword,
    naicCompanyCodes: keyword,
    /** No leading zeros (as imported): with naicCompanyCodes, what a directory group filter matches (schema 102). */
    naicGroupCode: keyword,
    carrierIds: keyword,
    groupId: keyword,
    toiCode: keyword,
    subToiCode: keyword,
    normalizedOutcome: keyword,
    filingTypeNormalized: keyword,
    submissionDate: date,
    dispositionDate: date,
    stateStatusChangedDate: date,
    /** Company, product, types, filing type and description: the metadata match of the ranking. */
    meta: english,
    // Page documents.
    fileId: keyword,
    /** `raw` gives the name from doc values: listing matched files reads no _source. */
    fileName: { ...english, fields: { raw: { type: 'keyword', ignore_above: 1024 } } },
    versionId: { type: 'keyword', index: false },
    page: { type: 'integer' },
    segment: { type: 'integer' },
    /** Positions (the default) for phrases; no offsets: passages are cut in the service, not by the highlighter. */
    body: english,
    // Filing documents.
    /** Every page segment of the filing (an array: the default position gap keeps phrases within one page). */
    text: english,
    record: { type: 'object', enabled: false },
    pageDocIds: stored,
    retiredDocIds: stored,
  },
};

/** Deterministic page document ids: a replay writes the same ids, and a new version can compute what to delete. */
export function pageDocId(filingId: string, fileId: string, page: number | null, segment: number): string {
  return `${filingId}:${fileId}:${page ?? 0}:${segment}`;
}

export function filingDocId(filingId: string): string {
  return filingId;
}
