/** The search index's projection name: `ifrs import --wait` waits for it like any read model. */
export const SEARCH_PROJECTION = 'search_index';
