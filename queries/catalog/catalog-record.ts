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

/**
 * The columns of a list record: not the description (rarely asked for) nor the files jsonb (detail only),
 * so a page of 50 neither ships nor JSON-parses them.
 */
export const CATALOG_LIST_COLUMNS = [
  'id', 'source', 'source_reference', 'state', 'company_name', 'naic_company_codes', 'naic_group_code', 'carrier_ids', 'group_id',
  'product_name', 'type_of_insurance', 'sub_type_of_insurance', 'toi_code', 'sub_toi_code', 'filing_type', 'source_status',
  'submission_date', 'disposition_date', 'business_type', 'normalized_outcome', 'filing_type_normalized', 'state_status_changed_date',
] as const;

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
  const out: Record<string, unknown> = {
    id: r.id,
    source: r.source,
    sourceReference: r.source_reference,
    state: r.state,
    companyName: r.company_name,
    naicCompanyCodes: r.naic_company_codes,
    naicGroupCode: r.naic_group_code,
    carrierIds: r.carrier_ids,
    groupId: r.group_id,
    productName: r.product_name,
    typeOfInsurance: r.type_of_insurance,
    subTypeOfInsurance: r.sub_type_of_insurance,
    toiCode: r.toi_code,
    subToiCode: r.sub_toi_code,
    filingType: r.filing_type,
    sourceStatus: r.source_status,
    submissionDate: r.submission_date,
    dispositionDate: r.disposition_date,
    businessType: r.business_type,
    normalizedOutcome: r.normalized_outcome,
    filingTypeNormalized: r.filing_type_normalized,
    stateStatusChangedDate: r.state_status_changed_date,
  };
  if (withDescription) out.description = r.description;
  return out;
}

/** Detail = list record + description + a files summary (count and per-role counts). */
export function toCatalogFilingDetail(r: CatalogRow): Record<string, unknown> {
  const byRole: Record<string, number> = {};
  for (const f of r.files) byRole[f.role] = (byRole[f.role] ?? 0) + 1;
  return { ...toCatalogFiling(r, true), files: { count: r.files.length, byRole } };
}
