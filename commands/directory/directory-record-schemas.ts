import { z } from 'zod';
import { NAIC_COMPANY_CODE, SUB_TOI_CODE, TOI_CODE } from '../../src/domain/catalog-enums';
import { CARRIER_GROUP_ID, CARRIER_ID, MGA_SLUG, PRODUCT_ID } from '../../src/domain/directory-records';

const name = z.string().trim().min(1).max(500);
const carrierId = z.string().regex(CARRIER_ID, 'carrier ids look like carrier_<code>');
const groupId = z.string().regex(CARRIER_GROUP_ID, 'group ids look like carrier_group_<code>');
const state = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter upper-case state code');
const aliases = z.array(z.string().trim().min(1).max(500)).max(1000).default([]);

const identifier = z.strictObject({ scheme: z.string().regex(/^[a-z][a-z0-9_]*$/, 'schemes are lower-case words'), value: z.string().min(1).max(100) });

export const carrierGroupRecord = z
  .strictObject({
    type: z.literal('carrier_group'),
    id: groupId,
    name,
    identifiers: z
      .array(identifier.refine((i) => i.scheme !== 'naic_group' || /^\d{1,5}$/.test(i.value), 'a naic_group value is digits (padding kept)'))
      .default([]),
  })
  .transform(({ type: _t, ...r }) => r);

export const carrierRecord = z
  .strictObject({
    type: z.literal('carrier'),
    id: carrierId,
    name,
    identifiers: z.array(identifier.refine((i) => i.scheme !== 'naic_company' || NAIC_COMPANY_CODE.test(i.value), 'a naic_company value is five digits')).default([]),
    groupId: groupId.nullable().default(null),
    domicile: state.nullable().default(null),
    status: z.string().min(1).max(100).nullable().default(null),
    aliases,
    grossPremiumWritten: z.strictObject({ year: z.number().int().min(1800).max(3000), amount: z.number() }).nullable().default(null),
    cessionRatio: z.strictObject({ year: z.number().int().min(1800).max(3000), value: z.number() }).nullable().default(null),
    mergedInto: carrierId.nullable().default(null),
  })
  .transform(({ type: _t, ...r }) => r);

export const mgaRecord = z
  .strictObject({
    type: z.literal('mga'),
    id: z.string().regex(/^mga_[a-z0-9]+(?:-[a-z0-9]+)*$/, 'mga ids look like mga_<slug>'),
    slug: z.string().regex(MGA_SLUG, 'a slug is lowercase letters and digits joined by single hyphens'),
    name,
    aliases,
    carriers: z
      .array(z.strictObject({ carrierId, role: z.string().min(1).max(200), sourceNotes: z.string().max(20000).nullable().default(null) }))
      .max(1000)
      .default([]),
  })
  .refine((r) => r.id === `mga_${r.slug}`, { message: 'the id must be mga_<slug>', path: ['id'] })
  .transform(({ type: _t, ...r }) => r);

const citation = z.looseObject({ kind: z.string().min(1).max(100) });

export const productRecord = z
  .strictObject({
    type: z.literal('product'),
    id: z.string().regex(PRODUCT_ID, 'product ids look like product_<code>'),
    name,
    productType: z.string().min(1).max(200),
    admitted: z.boolean(),
    predecessorProductId: z.string().regex(PRODUCT_ID).nullable().default(null),
    note: z.string().max(20000).nullable().default(null),
    groupId: groupId.nullable().default(null),
    mgaId: z.string().regex(/^mga_[a-z0-9]+(?:-[a-z0-9]+)*$/).nullable().default(null),
    availability: z
      .array(
        z.strictObject({
          state: z.string().min(1).max(200),
          writingCompanyIds: z.array(carrierId).default([]),
          toiCodes: z.array(z.string().regex(TOI_CODE, 'a TOI code looks like 17.0')).default([]),
          subtoiCodes: z.array(z.string().regex(SUB_TOI_CODE, 'a sub-TOI code looks like 17.0001')).default([]),
          note: z.string().max(20000).nullable().default(null),
        }),
      )
      .default([]),
    claims: z.array(z.looseObject({ text: z.string().min(1).max(20000), citations: z.array(citation).default([]) })).default([]),
    filings: z
      .array(z.strictObject({ state: z.string().min(1).max(200), filingId: z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, 'must be a UUID').transform((s) => s.toLowerCase()) }))
      .default([]),
  })
  .transform(({ type: _t, ...r }) => r);
