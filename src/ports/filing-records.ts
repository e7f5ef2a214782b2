import type { CatalogFilingFields } from '../domain/events/catalog';

/**
 * The catalog records (without `description`) of filings, by id: what a search result shows of each
 * filing. The Elasticsearch search index reads them from here (the catalog read model) instead of from
 * its own documents, which made a quarter of a search's Elasticsearch CPU (docs/search.md). A filing the
 * source does not know (yet) is absent from the map; the caller decides what to do with it.
 */
export interface FilingRecords {
  byIds(ids: readonly string[]): Promise<Map<string, CatalogFilingFields>>;
}
