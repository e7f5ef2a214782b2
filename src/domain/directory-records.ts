/** Directory records as imported (OPERATIONS.md), after validation and normalization. */

const CODE = '[A-Za-z0-9][A-Za-z0-9_-]*';
export const CARRIER_ID = new RegExp(`^carrier_(?!group_)${CODE}$`);
export const CARRIER_GROUP_ID = new RegExp(`^carrier_group_${CODE}$`);
export const PRODUCT_ID = new RegExp(`^product_${CODE}$`);
/** MGA slugs: lowercase letters and digits joined by single hyphens (the products filter's format). */
export const MGA_SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export interface Identifier {
  scheme: string;
  value: string;
}

export interface CarrierGroupRecord {
  id: string;
  name: string;
  identifiers: Identifier[];
}

export interface CarrierRecord {
  id: string;
  name: string;
  identifiers: Identifier[];
  groupId: string | null;
  domicile: string | null;
  status: string | null;
  aliases: string[];
  grossPremiumWritten: { year: number; amount: number } | null;
  cessionRatio: { year: number; value: number } | null;
  mergedInto: string | null;
}

export interface MgaCarrierLink {
  carrierId: string;
  role: string;
  sourceNotes: string | null;
}

export interface MgaRecord {
  id: string;
  slug: string;
  name: string;
  aliases: string[];
  carriers: MgaCarrierLink[];
}

export interface AvailabilityRow {
  state: string;
  writingCompanyIds: string[];
  toiCodes: string[];
  subtoiCodes: string[];
  note: string | null;
}

export type Citation = { kind: string; [key: string]: unknown };

export interface ProductClaim {
  text: string;
  citations: Citation[];
  [key: string]: unknown;
}

export interface ProductRecord {
  id: string;
  name: string;
  productType: string;
  admitted: boolean;
  predecessorProductId: string | null;
  note: string | null;
  groupId: string | null;
  mgaId: string | null;
  availability: AvailabilityRow[];
  claims: ProductClaim[];
  filings: { state: string; filingId: string }[];
}
