import type { Knex } from 'knex';
import type { CatalogFilingFields, CatalogSource } from '../domain/events/catalog';

/**
 * Document search over catalog filings. The search projector feeds it (one filing with its per-page
 * texts at a time, in log order); the search endpoint queries it. Adapters: Postgres full-text search
 * (default, `infra/search/postgres-search-index.ts`) and Elasticsearch (`infra/search/elasticsearch-search-index.ts`); both must pass
 * `test/contracts/search-index.contract.ts`, including its relevance floor.
 */

/** One indexed file: its text split by page (page n = pages[n-1]; a null page number when there is no page map). */
export interface SearchDocument {
  fileId: string;
  name: string;
  /** The source version of the file as it was when indexed; null when unknown (never inferred later). */
  versionId: string | null;
  textRevision: string;
  pages: { page: number | null; text: string }[];
}

export interface IndexedFiling {
  filing: CatalogFilingFields;
  documents: SearchDocument[];
  /** Stream version of the event this reflects: older versions never overwrite newer ones (replays are harmless). */
  version: number;
  /**
   * The event's log position (prepare), set by the projector. Engines outside the projection's
   * transaction (Elasticsearch) use it as the external document version; without it, `version`.
   * A writer uses one or the other for a given index, never both.
   */
  position?: bigint;
}

/** Where writes happen. For Postgres: the projection's transaction and table namer (atomic with the checkpoint). Other engines ignore it and write idempotently by `version`. */
export interface IndexWriteContext {
  trx: Knex.Transaction;
  table: (logical: string) => string;
}

// ---- the query model (already validated and normalized by queries/search) ----

export type FilterOperator = 'eq' | 'in' | 'contains' | 'containsAny' | 'notContainsAny' | 'gte' | 'lte' | 'between';

/** Normalized filters: each is AND-ed; values of `in` / `containsAny` are OR-ed. */
export type IndexFilter =
  | { kind: 'in'; field: 'state' | 'toiCode' | 'subToiCode' | 'normalizedOutcome' | 'filingTypeNormalized' | 'source' | 'companyName' | 'productName'; values: string[] }
  /**
   * A directory group, resolved by the endpoint to codes the filings carry: the filing's `naicGroupCode` is one of
   * `naicGroupCodes` (no leading zeros) OR its `naicCompanyCodes` hold one of `naicCompanyCodes`. The filing's own
   * `groupId` plays no part, as in the catalog list's `group`.
   */
  | { kind: 'group'; naicGroupCodes: string[]; naicCompanyCodes: string[] }
  | { kind: 'contains'; field: 'companyName' | 'productName'; value: string }
  | { kind: 'arrayAny'; field: 'carrierIds' | 'naicCompanyCodes'; values: string[]; negate: boolean }
  | { kind: 'date'; field: 'submissionDate' | 'dispositionDate' | 'stateStatusChangedDate'; from: string | null; to: string | null }
  | { kind: 'reference'; refs: { source: CatalogSource; reference: string }[] };

export type SortField = 'relevance' | 'submissionDate' | 'dispositionDate' | 'stateStatusChangedDate' | 'companyName' | 'state';
export interface SortKey {
  field: SortField;
  direction: 'asc' | 'desc';
}

export interface SearchQuery {
  /** Keyword text without honoured phrases; may be empty (then only filters and phrases select). */
  keywords: string;
  /** Exact phrases that must all occur in one page (only when a narrowing filter is present). */
  phrases: string[];
  /** A secondary ranking signal: never selects, only reorders. */
  intent: string | null;
  /** A tracking-number query: matches the native reference instead of the text. */
  reference: { value: string; mode: 'exact' | 'prefix'; source: CatalogSource } | null;
  filters: IndexFilter[];
  dataScope: 'recent' | 'historical' | 'all';
  /** Sources the caller may not see (serff without serff:view). */
  excludedSources: CatalogSource[];
  sort: SortKey[];
  /** Candidate window: the best `window` filings by relevance are retrieved, then sorted by `sort`. */
  window: number;
  offset: number;
  limit: number;
  /** Aborts when the request's client went away: an adapter cancels the work it is doing for it. */
  signal?: AbortSignal;
}

export interface MatchRef {
  filingId: string;
  fileId: string;
}

export interface SearchHit {
  filing: CatalogFilingFields;
  score: number;
  /** Files that matched, best first. */
  matches: { fileId: string; versionId: string | null; name: string }[];
}

export interface SearchPage {
  hits: SearchHit[];
  /** Candidates retrieved (at most `window`). */
  candidates: number;
  /** False when more filings matched than the window holds. */
  exhaustive: boolean;
}

export interface Passage {
  text: string;
  pageStart: number | null;
  pageEnd: number | null;
}

export interface SearchIndex {
  /** Read-model tables the adapter keeps in the projection database (empty for external engines). */
  readonly tables: readonly string[];
  /** Added to the search projector's version, so switching adapters (or an index design change) rebuilds from the log. Postgres: none. */
  readonly schemaVersion?: number;
  /** Creates the store; `table` names it (a rebuild passes its shadow namer). External engines create a new physical index here. */
  createSchema(trx: Knex.Transaction, table: (logical: string) => string): Promise<void>;
  /** Optional: upgrades a store an earlier release created, in place (Projector.upgradeSchema). */
  upgradeSchema?(trx: Knex.Transaction, table: (logical: string) => string): Promise<void>;
  /** Replaces what is indexed for each filing (metadata and documents), unless a newer version is already there. */
  upsert(ctx: IndexWriteContext, filings: IndexedFiling[]): Promise<void>;
  remove(ctx: IndexWriteContext, filingIds: string[]): Promise<void>;
  /** One page of results: the candidate window by relevance, sorted, then `offset`/`limit`. */
  search(q: SearchQuery): Promise<SearchPage>;
  /** Passages for the given matches only (the returned page, never the whole window), keyed by fileId. */
  passages(q: SearchQuery, matches: MatchRef[], perFile: number): Promise<Map<string, Passage[]>>;
  /**
   * Engines whose data is not in the projection's tables: at the end of a rebuild (inside the engine's
   * swap transaction, before the checkpoint moves) the index built under the `shadow` namer becomes the live one.
   */
  promote?(shadow: (logical: string) => string): Promise<void>;
  /** Engines whose data is not in the projection's tables: removes the store an interrupted rebuild built under `shadow`, if any. */
  discardShadow?(shadow: (logical: string) => string): Promise<void>;
}
