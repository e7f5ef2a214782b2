import type { Knex } from 'knex';
import { z } from '../../src/http/zod';
import { FILING_TYPES_NORMALIZED, NORMALIZED_OUTCOMES } from '../../commands/catalog/catalog-enums';

export interface CatalogRow {
  id: string;
  source: string;
  source_reference: string;
  state: string;
  company_name: string;
  naic_company_codes: string[] | null;
  naic_group_code: string | null;
  carrier_ids: string[] | null;
  group_id: string | null;
  product_name: string;
  type_of_insurance: string;
  sub_type_of_insurance: string;
  toi_code: string | null;
  sub_toi_code: string | null;
  filing_type: string;
  source_status: string;
  submission_date: string | null;
  disposition_date: string | null;
  business_type: string;
  normalized_outcome: string;
  filing_type_normalized: string;
  state_status_changed_date: string | null;
  description: string | null;
  files: { fileId: string; name: string; role: string; versionId: string | null }[];
}

/** The list record's fields and the catalog_filings columns they come from, in the record's order. */
const LIST_FIELDS = [
  ['id', 'id'], ['source', 'source'], ['sourceReference', 'source_reference'], ['state', 'state'], ['companyName', 'company_name'],
  ['naicCompanyCodes', 'naic_company_codes'], ['naicGroupCode', 'naic_group_code'], ['carrierIds', 'carrier_ids'], ['groupId', 'group_id'],
  ['productName', 'product_name'], ['typeOfInsurance', 'type_of_insurance'], ['subTypeOfInsurance', 'sub_type_of_insurance'],
  ['toiCode', 'toi_code'], ['subToiCode', 'sub_toi_code'], ['filingType', 'filing_type'], ['sourceStatus', 'source_status'],
  ['submissionDate', 'submission_date'], ['dispositionDate', 'disposition_date'], ['businessType', 'business_type'],
  ['normalizedOutcome', 'normalized_outcome'], ['filingTypeNormalized', 'filing_type_normalized'], ['stateStatusChangedDate', 'state_status_changed_date'],
] as const;

/**
 * The list record serialized by Postgres, as text (json would make pg JSON.parse it again): node then
 * pastes 50 strings into the page instead of parsing 1,100 fields, building 50 objects and stringifying
 * them, which was most of the endpoint's CPU and nearly all of its garbage. Same record as
 * `toCatalogFiling`: dates are `date` columns, which JSON renders as YYYY-MM-DD like the API's text.
 * row_to_json of a row, not json_build_object: it writes no blanks around ':' and ',' (5 KB less per page).
 */
function recordJsonSql(withDescription: boolean): string {
  const fields = withDescription ? [...LIST_FIELDS, ['description', 'description'] as const] : LIST_FIELDS;
  return `(select row_to_json(r) from (select ${fields.map(([field, column]) => `"${column}" as "${field}"`).join(', ')}) r)::text as "record"`;
}
const RECORD_JSON = { plain: recordJsonSql(false), withDescription: recordJsonSql(true) };

/** A list page's row: the keyset position (id and the sort columns) and the serialized record. */
export interface CatalogListRow {
  id: string;
  record: string;
  [sortColumn: string]: string | null;
}

/**
 * What a list page selects: the id and sort columns the keyset and the merged branches order by, and
 * the record as JSON text (not the files jsonb, detail only; the description only when asked for).
 */
export function catalogListColumns(knex: Knex, sortColumns: readonly string[], withDescription: boolean): (string | Knex.Raw)[] {
  return ['id', ...sortColumns.filter((c) => c !== 'id'), knex.raw(withDescription ? RECORD_JSON.withDescription : RECORD_JSON.plain)];
}

export const CatalogFiling = z
  .object({
    id: z.uuid(),
    source: z.enum(['serff', 'florida_irfs']),
    sourceReference: z.string(),
    state: z.string(),
    companyName: z.string(),
    naicCompanyCodes: z.array(z.string()).nullable(),
    naicGroupCode: z.string().nullable(),
    carrierIds: z.array(z.string()).nullable(),
    groupId: z.string().nullable(),
    productName: z.string(),
    typeOfInsurance: z.string(),
    subTypeOfInsurance: z.string(),
    toiCode: z.string().nullable(),
    subToiCode: z.string().nullable(),
    filingType: z.string(),
    sourceStatus: z.string(),
    submissionDate: z.string().nullable(),
    dispositionDate: z.string().nullable(),
    businessType: z.string(),
    normalizedOutcome: z.enum(NORMALIZED_OUTCOMES),
    filingTypeNormalized: z.enum(FILING_TYPES_NORMALIZED),
    stateStatusChangedDate: z.string().nullable(),
    description: z.string().nullable().optional().describe('Only on a lookup with exactly one source and exactly one sourceReference.'),
  })
  .openapi('CatalogFiling');

export const CatalogFilingDetail = CatalogFiling.extend({
  description: z.string().nullable(),
  files: z
    .object({ count: z.number().int(), byRole: z.record(z.string(), z.number().int()) })
    .describe('Summary of the stored files; the inventory itself is GET /filings/{filingId}/files.'),
}).openapi('CatalogFilingDetail');

/** The spec's catalog filing record: every nullable field present, `description` only when asked for. */
export function toCatalogFiling(r: Omit<CatalogRow, 'files' | 'description'> & { description?: string | null }, withDescription: boolean): Record<string, unknown> {
  const row = r as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [field, column] of LIST_FIELDS) out[field] = row[column];
  if (withDescription) out.description = r.description;
  return out;
}

/** Detail = list record + description + a files summary (count and per-role counts). */
export function toCatalogFilingDetail(r: CatalogRow): Record<string, unknown> {
  const byRole: Record<string, number> = {};
  for (const f of r.files) byRole[f.role] = (byRole[f.role] ?? 0) + 1;
  return { ...toCatalogFiling(r, true), files: { count: r.files.length, byRole } };
}
