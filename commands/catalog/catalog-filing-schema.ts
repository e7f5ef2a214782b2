import { z } from 'zod';
import {
  CATALOG_SOURCES,
  FILE_ROLES,
  FILING_TYPES_NORMALIZED,
  NAIC_COMPANY_CODE,
  NORMALIZED_OUTCOMES,
  SUB_TOI_CODE,
  TOI_CODE,
  isIsoDate,
  normalizeNaicGroupCode,
  normalizeSourceReference,
} from '../../src/domain/catalog-enums';

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const uuid = z.string().regex(UUID, 'must be a UUID').transform((s) => s.toLowerCase());
const date = z
  .string()
  .refine(isIsoDate, 'must be a date YYYY-MM-DD')
  .nullable()
  .default(null);
const text = z.string().max(20000);
// Spec, Resources: a field not marked required may be null when the source does not give it.
const optionalText = text.nullable().default(null);

const importFile = z.strictObject({
  fileId: uuid,
  name: z.string().min(1).max(1000),
  role: z.enum(FILE_ROLES),
  versionId: z.string().min(1).max(256).nullable().default(null),
  mimeType: z.string().min(1).max(255).default('application/octet-stream'),
  restricted: z.boolean().default(false),
  content: z
    .union([z.strictObject({ path: z.string().min(1) }), z.strictObject({ base64: z.string() })])
    .nullable()
    .default(null),
  text: z.strictObject({ pages: z.array(z.string()) }).nullable().default(null),
});

/** `{"type": "catalog_filing", ...}` of OPERATIONS.md: every field of the spec's catalog filing record. */
export const catalogFilingRecord = z
  .strictObject({
    type: z.literal('catalog_filing'),
    id: uuid,
    source: z.enum(CATALOG_SOURCES),
    sourceReference: z.string().trim().min(1).max(256),
    state: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be a two-letter state code')
      .transform((s) => s.toUpperCase()),
    companyName: optionalText,
    naicCompanyCodes: z.array(z.string().regex(NAIC_COMPANY_CODE, 'NAIC company codes are five digits')).nullable().default(null),
    naicGroupCode: z
      .string()
      .regex(/^\d{1,5}$/, 'a NAIC group code is digits')
      .transform(normalizeNaicGroupCode)
      .nullable()
      .default(null),
    carrierIds: z.array(z.string().regex(/^carrier_(?!group_)[A-Za-z0-9_-]+$/, 'carrier ids look like carrier_<code>')).nullable().default(null),
    groupId: z.string().regex(/^carrier_group_[A-Za-z0-9_-]+$/, 'group ids look like carrier_group_<code>').nullable().default(null),
    productName: optionalText,
    typeOfInsurance: optionalText,
    subTypeOfInsurance: optionalText,
    toiCode: z.string().regex(TOI_CODE, 'a TOI code looks like 04.0').nullable().default(null),
    subToiCode: z.string().regex(SUB_TOI_CODE, 'a sub-TOI code looks like 04.0003').nullable().default(null),
    filingType: optionalText,
    sourceStatus: optionalText,
    submissionDate: date,
    dispositionDate: date,
    businessType: optionalText,
    normalizedOutcome: z.enum(NORMALIZED_OUTCOMES),
    filingTypeNormalized: z.enum(FILING_TYPES_NORMALIZED),
    stateStatusChangedDate: date,
    description: z.string().max(100000).nullable().default(null),
    files: z.array(importFile).max(10000).default([]),
  })
  .superRefine((r, ctx) => {
    // Stored without FL- (normalizeSourceReference): a bare prefix would be an empty reference.
    if (normalizeSourceReference(r.source, r.sourceReference) === '') {
      ctx.addIssue({ code: 'custom', path: ['sourceReference'], message: 'a Florida file log number is needed after FL-' });
    }
    if (r.subToiCode && r.toiCode && r.subToiCode.slice(0, 2) !== r.toiCode.slice(0, 2)) {
      ctx.addIssue({ code: 'custom', path: ['subToiCode'], message: `sub-TOI ${r.subToiCode} does not belong to TOI ${r.toiCode}` });
    }
  })
  .transform((r) => ({ ...r, sourceReference: normalizeSourceReference(r.source, r.sourceReference) }));

export type CatalogFilingImportRecord = z.infer<typeof catalogFilingRecord>;
