import type { CatalogSource } from '../../src/domain/events/catalog';
import type { SearchQuery, SortKey } from '../../src/ports/search-index';
import { isNarrowing, toIndexFilter, type RawFilter } from './search-filters';

/** The body fields that define a search (the cursor is bound to all of them). */
export interface SearchBody {
  query: string;
  intent?: string;
  filters?: RawFilter[];
  sort?: SortKey[];
  includePassages?: boolean;
  dataScope?: 'recent' | 'historical' | 'all';
  limit?: number;
}

/** Spec: 100 documents with passages, up to 1,200 without. */
export const WINDOW_WITH_PASSAGES = 100;
export const WINDOW_WITHOUT_PASSAGES = 1200;
export const INCLUDE_PASSAGES_DEFAULT = false;
export const DEFAULT_SORT: SortKey[] = [{ field: 'submissionDate', direction: 'desc' }];
export const DEFAULT_DATA_SCOPE = 'recent';
export const DEFAULT_LIMIT = 50;

// SERFF tracking numbers: a four-letter company code, a dash, an optional letter and nine digits.
const SERFF_COMPLETE = /^[A-Z]{4}-[A-Z]?\d{9}$/i;
const SERFF_PARTIAL = /^[A-Z]{4}-[A-Z]?\d{1,8}$/i;
// Florida file log numbers: two-digit year, a dash, six digits; `FL-` prefix optional in a query.
const FL_COMPLETE = /^(?:FL-)?(\d{2}-\d{6})$/i;
const FL_PARTIAL = /^(?:FL-)?(\d{2}-\d{1,5})$|^FL-(\d{1,2}-?)$/i;

/** A query that is a (complete or partial) tracking number, or null. */
export function trackingNumberOf(query: string): { value: string; mode: 'exact' | 'prefix'; source: CatalogSource } | null {
  const q = query.trim();
  if (SERFF_COMPLETE.test(q)) return { value: q, mode: 'exact', source: 'serff' };
  if (SERFF_PARTIAL.test(q)) return { value: q, mode: 'prefix', source: 'serff' };
  let m = FL_COMPLETE.exec(q);
  if (m) return { value: m[1], mode: 'exact', source: 'florida_irfs' };
  m = FL_PARTIAL.exec(q);
  if (m) return { value: m[1] ?? m[2], mode: 'prefix', source: 'florida_irfs' };
  return null;
}

/** Quoted phrases and the rest of the query. An unpaired quote is just dropped. */
export function splitPhrases(query: string): { phrases: string[]; rest: string } {
  const phrases: string[] = [];
  const rest = query.replace(/"([^"]*)"/g, (_all, p: string) => {
    if (p.trim()) phrases.push(p.trim());
    return ' ';
  });
  return { phrases, rest: rest.replace(/"/g, ' ').replace(/\s+/g, ' ').trim() };
}

/** Lower case, punctuation as spaces, whitespace collapsed: how query and intent are compared. */
export function normalizeWords(s: string): string[] {
  return s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
}

/** An intent "merely repeats" the query when it adds no word of its own (after normalization). */
export function intentRepeatsQuery(query: string, intent: string): boolean {
  const q = new Set(normalizeWords(query));
  return normalizeWords(intent).every((w) => q.has(w));
}

/** The index's query model for a validated body. */
export function buildSearchQuery(body: SearchBody, caller: { canViewSerff: boolean }, page: { offset: number }): SearchQuery {
  const filters = body.filters ?? [];
  const reference = trackingNumberOf(body.query);
  let keywords = '';
  let phrases: string[] = [];
  if (!reference) {
    const split = splitPhrases(body.query);
    // Spec: a quoted phrase needs a narrowing metadata filter; otherwise its words are plain keywords.
    if (split.phrases.length && filters.some(isNarrowing)) {
      phrases = split.phrases;
      keywords = split.rest;
    } else {
      keywords = [split.rest, ...split.phrases].join(' ').trim();
    }
  }
  const includePassages = body.includePassages ?? INCLUDE_PASSAGES_DEFAULT;
  const excludedSources: CatalogSource[] = caller.canViewSerff ? [] : ['serff'];
  return {
    keywords,
    phrases,
    intent: body.intent ?? null,
    reference,
    filters: filters.map(toIndexFilter),
    dataScope: body.dataScope ?? DEFAULT_DATA_SCOPE,
    excludedSources,
    sort: body.sort ?? DEFAULT_SORT,
    window: includePassages ? WINDOW_WITH_PASSAGES : WINDOW_WITHOUT_PASSAGES,
    offset: page.offset,
    limit: body.limit ?? DEFAULT_LIMIT,
  };
}
