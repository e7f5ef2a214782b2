import { z } from '../../src/http/zod';

export const IdName = z.object({ id: z.string(), name: z.string().nullable() });
export const Identifier = z.object({ scheme: z.string(), value: z.string() });

export const Carrier = z
  .object({
    id: z.string(),
    identifiers: z.array(Identifier),
    name: z.string(),
    group: IdName.nullable(),
    domicile: z.string().nullable(),
    status: z.string().nullable(),
    grossPremiumWritten: z.object({ year: z.number().int(), amount: z.number() }).nullable(),
    cessionRatio: z.object({ year: z.number().int(), value: z.number() }).nullable(),
  })
  .openapi('Carrier');

export const CarrierDetail = Carrier.extend({
  aliases: z.array(z.string()),
  groupMembers: z.array(IdName).describe('The other (unmerged) carriers of its group.'),
  mgas: z.array(z.object({ id: z.string(), name: z.string(), role: z.string(), sourceNotes: z.string().nullable() })),
}).openapi('CarrierDetail');

export const CarrierGroup = z.object({ id: z.string(), name: z.string(), identifiers: z.array(Identifier) }).openapi('CarrierGroup');
export const CarrierGroupDetail = CarrierGroup.extend({ members: z.array(IdName).describe('Its (unmerged) carriers, by name.') }).openapi('CarrierGroupDetail');

export const Mga = z.object({ id: z.string(), slug: z.string(), name: z.string(), aliases: z.array(z.string()) }).openapi('Mga');
export const MgaDetail = Mga.extend({
  carriers: z
    .array(z.object({ id: z.string(), name: z.string().nullable(), role: z.string(), sourceNotes: z.string().nullable() }))
    .describe('Backing carriers: each link with its role and source notes.'),
}).openapi('MgaDetail');

const ProductBase = z.object({
  id: z.string(),
  name: z.string(),
  type: z.string(),
  admitted: z.boolean(),
  predecessorProductId: z.string().nullable(),
  note: z.string().nullable(),
  group: IdName.nullable(),
  mga: IdName.nullable(),
});
export const ProductListItem = ProductBase.extend({
  availabilitySummary: z.object({ states: z.array(z.string()), stateCount: z.number().int() }),
}).openapi('ProductListItem');
export const Product = ProductBase.extend({
  availability: z.array(
    z.object({ state: z.string(), writingCompanies: z.array(IdName), toiCodes: z.array(z.string()), subtoiCodes: z.array(z.string()), note: z.string().nullable() }),
  ),
  claims: z.array(
    z.object({ text: z.string(), citations: z.array(z.object({ kind: z.string() }).loose()), verified: z.boolean().describe('False when no citation can be retrieved through the interface.') }).loose(),
  ),
}).openapi('Product');

export const nameParam = z.string().min(1).max(500);
