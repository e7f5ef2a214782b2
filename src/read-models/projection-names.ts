/** Read-model (projection) names of the working-filings feature: commands wait for these. */
export const MANAGED_FILINGS_PROJECTION = 'managed-filings';
export const MANAGED_FILING_ITEMS_PROJECTION = 'managed-filing-items';
export const MANAGED_FILING_COMMENTS_PROJECTION = 'managed-filing-comments';
export const MANAGED_FILING_HISTORY_PROJECTION = 'managed-filing-history';
export const SCOPE_LISTINGS_PROJECTION = 'scope-listings';
export const ARTIFACTS_PROJECTION = 'working-artifacts';
/**
 * The filing, item, comment and history read models run as one group (see GroupedProjector): every
 * write of a filing waits for its history and one of the others, which then commit in one batch.
 */
export const WORKING_FILINGS_RUN_GROUP = 'working-filings';
