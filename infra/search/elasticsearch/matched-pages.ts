import type { estypes } from '@elastic/elasticsearch';
import type { SearchHit } from '../../../src/ports/search-index';
import { pageDocId } from './mapping';

/**
 * The matched pages of a result page's filings, read from doc values only (no _source, no highlight):
 * one flat search sorted by score gives both the matched files of each filing (a file ranks by its
 * best page, as a collapse on fileId would) and each file's best pages, which passages then
 * highlight by id. Flat instead of collapsed: a collapse scores the same pages and adds grouping
 * work on the server, and a collapse with inner hits runs one extra search per file.
 */

/** Elasticsearch's max_result_window: pages beyond it (a page of 200 very long filings) are not listed. */
export const MATCHED_PAGES_MAX = 10_000;
/** Best pages kept per file for passages (the endpoint asks for 2). */
export const PAGES_KEPT = 3;

export function matchedPagesRequest(query: estypes.QueryDslQueryContainer): estypes.SearchRequest {
  return {
    query,
    size: MATCHED_PAGES_MAX,
    sort: [{ _score: { order: 'desc' } }, { fileId: { order: 'asc' } }, { page: { order: 'asc', missing: '_last' } }, { segment: { order: 'asc' } }],
    stored_fields: ['_none_'],
    docvalue_fields: ['filingId', 'fileId', 'fileName.raw', 'versionId', 'page', 'segment'],
    track_total_hits: false,
  };
}

export interface MatchedPages {
  /** Per filing: its matched files, best first, at most `filesPerFiling`. */
  files: Map<string, SearchHit['matches']>;
  /** Per listed file: the ids of its best pages, best first, at most PAGES_KEPT. */
  pages: Map<string, string[]>;
}

export function groupMatchedPages(hits: estypes.SearchHit[], filesPerFiling: number): MatchedPages {
  const files = new Map<string, SearchHit['matches']>();
  const pages = new Map<string, string[]>();
  const one = <T>(h: estypes.SearchHit, f: string): T | null => ((h.fields?.[f] as T[] | undefined) ?? [null])[0];
  for (const h of hits) {
    const filingId = one<string>(h, 'filingId')!;
    const fileId = one<string>(h, 'fileId')!;
    let ids = pages.get(fileId);
    if (!ids) {
      const list = files.get(filingId) ?? [];
      files.set(filingId, list);
      if (list.length >= filesPerFiling) continue;
      list.push({ fileId, versionId: one<string>(h, 'versionId'), name: one<string>(h, 'fileName.raw') ?? '' });
      ids = [];
      pages.set(fileId, ids);
    }
    if (ids.length < PAGES_KEPT) ids.push(pageDocId(filingId, fileId, one<number>(h, 'page'), one<number>(h, 'segment') ?? 0));
  }
  return { files, pages };
}
