/**
 * The catalog read model's schema: its projection name (what an import waits for), its tables and the run
 * group it shares with the files and directory read models. The projector writes these tables, the catalog
 * and directory queries and the Postgres search index read them.
 */

export const CATALOG_PROJECTION = 'catalog';

export const CATALOG_FILINGS = 'catalog_filings';
/**
 * Every company and product name the catalog has seen, one row each: `...Contains` matches its substring
 * here (a few thousand rows) instead of in every filing. Names are never removed (a filing renamed away
 * leaves its old name behind); a stale name matches no filing, so the list stays exact. `lower_name` is
 * stored: lower() of every name on every request was most of the look-up's time.
 */
export const CATALOG_COMPANY_NAMES = 'catalog_company_names';
export const CATALOG_PRODUCT_NAMES = 'catalog_product_names';

/**
 * The catalog, its files and the directories run as one group (see GroupedProjector): an import
 * writes them all, and each used to read the same events from the log and run its own transaction.
 * As a group one read of the log and one transaction per batch serve all three.
 */
export const CATALOG_RUN_GROUP = 'catalog-import';
