/** The list record's fields and the catalog_filings columns they come from, in the record's order. */
export const LIST_FIELDS = [
  ['id', 'id'], ['source', 'source'], ['sourceReference', 'source_reference'], ['state', 'state'], ['companyName', 'company_name'],
  ['naicCompanyCodes', 'naic_company_codes'], ['naicGroupCode', 'naic_group_code'], ['carrierIds', 'carrier_ids'], ['groupId', 'group_id'],
  ['productName', 'product_name'], ['typeOfInsurance', 'type_of_insurance'], ['subTypeOfInsurance', 'sub_type_of_insurance'],
  ['toiCode', 'toi_code'], ['subToiCode', 'sub_toi_code'], ['filingType', 'filing_type'], ['sourceStatus', 'source_status'],
  ['submissionDate', 'submission_date'], ['dispositionDate', 'disposition_date'], ['businessType', 'business_type'],
  ['normalizedOutcome', 'normalized_outcome'], ['filingTypeNormalized', 'filing_type_normalized'], ['stateStatusChangedDate', 'state_status_changed_date'],
] as const;

/**
 * The list record (without `description`) as JSON text, stored in `catalog_filings.list_record` when
 * the row is written: a list page then reads 51 stored strings instead of having Postgres build 51
 * records (row_to_json of 22 columns per row was ~80 % of a page's SQL time). `row` holds the
 * table's columns as the projector writes them; absent values render as null, like a NULL column.
 * Same text as `row_to_json` of those columns (test/catalog/catalog-list-record.int.test.ts).
 */
export function listRecordJson(row: Readonly<Record<string, unknown>>): string {
  const out: Record<string, unknown> = {};
  for (const [field, column] of LIST_FIELDS) out[field] = row[column] ?? null;
  return JSON.stringify(out);
}

/**
 * The same text rendered by Postgres from a catalog_filings row's columns (row_to_json writes no blanks,
 * escapes as JSON.stringify does and renders `date` as YYYY-MM-DD): for rows written by SQL rather than
 * by the projector (test fixtures), and the reference the projector's rendering is tested against.
 */
export const LIST_RECORD_SQL = `(select row_to_json(r) from (select ${LIST_FIELDS.map(([field, column]) => `"${column}" as "${field}"`).join(', ')}) r)::text`;
