/**
 * The catalog, its files and the directories run as one group (see GroupedProjector): an import
 * writes them all, and each used to read the same events from the log and run its own transaction.
 * As a group one read of the log and one transaction per batch serve all three.
 */
export const CATALOG_RUN_GROUP = 'catalog-import';
