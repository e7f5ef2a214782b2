import type { estypes } from '@elastic/elasticsearch';
import type { SearchHit } from '../../../src/ports/search-index';
import { pageDocId } from './mapping';

/**
 * The matched pages of a result page's filings: one flat search sorted by score gives both the matched
 * files of each filing (a file ranks by its best page, as a collapse on fileId would) and each file's best
 * pages, which passages are cut from. Flat instead of collapsed: a collapse scores the same pages and adds
 * grouping work on the server, and a collapse with inner hits runs one extra search per file.
 *
 * Two forms of the same search:
 * - without passages: sort values only (no _source, no doc-values fetch), every matched page up to
 *   MATCHED_PAGES_MAX. The listing's fields are trailing sort keys after the page's own unique key, so they never
 *   change the order; read from the hits' sort values they cost no fetch phase per hit (replayed at 100,000
 *   filings, 13 of the mix's result pages interleaved with the former form: ~2.5 ms of Elasticsearch CPU per result page instead
 *   of ~3.3 reading six doc-values fields, and 40 instead of 62 KB for node to parse);
 * - with passages: the pages' whole _source, text included, at most PAGES_WITH_TEXT + 1 hits. A result page
 *   of 50 filings matches ~200 pages and passages read ~170 of them (the 2 best of each listed file), so
 *   shipping every matched page's text once costs less than a second request for the chosen ones (a
 *   request's fixed cost is ~1–3 ms of Elasticsearch CPU, and reading a page's stored fields costs the same whether
 *   its text is returned or only its `_id`: the stored block is decompressed either way; docs/search.md).
 *   When more pages match than that budget, the listing is read again in the sort-values form (the budget
 *   bounds the text a search holds) and passages read what the budget's hits do not hold, by id.
 */

/** Elasticsearch's max_result_window: pages beyond it (a page of 200 very long filings) are not listed. */
export const MATCHED_PAGES_MAX = 10_000;
/** Matched pages whose text is read along with the listing (with passages) by default; past it, see above. */
export const PAGES_WITH_TEXT = 500;
/** Best pages kept per file for passages (the endpoint asks for 2). */
export const PAGES_KEPT = 3;

const BY_SCORE: estypes.Sort = [{ _score: { order: 'desc' } }, { fileId: { order: 'asc' } }, { page: { order: 'asc', missing: '_last' } }, { segment: { order: 'asc' } }];
/**
 * BY_SCORE, then what the listing needs and the page's key does not hold: a page document is unique by file, page
 * and segment, so these keys never reorder anything and only carry their values (`fileName.raw` is missing for a
 * name beyond its ignore_above, as in doc values).
 */
const BY_SCORE_LISTED: estypes.Sort = [...BY_SCORE, { filingId: { order: 'asc' } }, { 'fileName.raw': { order: 'asc', missing: '_last' } }, { versionId: { order: 'asc', missing: '_last' } }];
/** Where the listing's fields are in a BY_SCORE_LISTED hit's sort values. */
const SORTED = { fileId: 1, page: 2, segment: 3, filingId: 4, fileName: 5, versionId: 6 } as const;
/** The sort value of a missing integer with `missing: '_last'` (Integer.MAX_VALUE): a page without a number. */
const NO_PAGE = 2_147_483_647;

/** `textBudget`: the with-text form, reading at most that many pages (plus one, to know that more matched). */
export function matchedPagesRequest(query: estypes.QueryDslQueryContainer, textBudget?: number): estypes.SearchRequest {
  if (textBudget !== undefined) {
    // The whole _source: Elasticsearch copies its stored bytes as they are, while a filter makes it parse and
    // rewrite every document. Everything the listing needs is in it, so no doc-values fetch either.
    return { query, size: textBudget + 1, sort: BY_SCORE, _source: true, track_total_hits: false };
  }
  return { query, size: MATCHED_PAGES_MAX, sort: BY_SCORE_LISTED, stored_fields: ['_none_'], track_total_hits: false };
}

/** A page document's stored fields (its `_source`). */
export interface PageSource {
  filingId: string;
  fileId: string;
  fileName: string;
  versionId: string | null;
  page: number | null;
  segment: number;
  body?: string;
}

/** Whether a with-text response holds every matched page (else the listing must be read in the sort-values form). */
export const holdsEveryMatch = (hits: estypes.SearchHit[], textBudget: number): boolean => hits.length <= textBudget;

export interface MatchedPages {
  /** Per filing: its matched files, best first, at most `filesPerFiling`. */
  files: Map<string, SearchHit['matches']>;
  /** Per listed file: the ids of its best pages, best first, at most PAGES_KEPT. */
  pages: Map<string, string[]>;
}

/** Hits of either form of the request, best first. */
export function groupMatchedPages(hits: estypes.SearchHit[], filesPerFiling: number): MatchedPages {
  const files = new Map<string, SearchHit['matches']>();
  const pages = new Map<string, string[]>();
  for (const h of hits) {
    const p = fieldsOf(h);
    let ids = pages.get(p.fileId);
    if (!ids) {
      const list = files.get(p.filingId) ?? [];
      files.set(p.filingId, list);
      if (list.length >= filesPerFiling) continue;
      list.push({ fileId: p.fileId, versionId: p.versionId, name: p.fileName });
      ids = [];
      pages.set(p.fileId, ids);
    }
    if (ids.length < PAGES_KEPT) ids.push(pageDocId(p.filingId, p.fileId, p.page, p.segment));
  }
  return { files, pages };
}

/** The text of the hits that carry it (the with-text form), by page document id. */
export function pageTexts(hits: estypes.SearchHit[]): Map<string, PageSource> {
  const out = new Map<string, PageSource>();
  for (const h of hits) if (h._source) out.set(h._id!, h._source as PageSource);
  return out;
}

function fieldsOf(h: estypes.SearchHit): PageSource {
  if (h._source) {
    const s = h._source as PageSource;
    return { ...s, page: s.page ?? null, versionId: s.versionId ?? null, segment: s.segment ?? 0 };
  }
  const v = h.sort!;
  const page = v[SORTED.page] as number;
  return {
    filingId: v[SORTED.filingId] as string,
    fileId: v[SORTED.fileId] as string,
    fileName: (v[SORTED.fileName] as string | null) ?? '',
    versionId: (v[SORTED.versionId] as string | null) ?? null,
    page: page === NO_PAGE ? null : page,
    segment: (v[SORTED.segment] as number | null) ?? 0,
  };
}
