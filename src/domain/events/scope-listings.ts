/**
 * One entry of a scope's company, jurisdiction or product listing, as imported (streams
 * `scopeCompany-<uuid>`, `scopeJurisdiction-<uuid>`, `scopeProduct-<uuid>`). Per-entry streams make a
 * re-import cheap: an unchanged record appends nothing, a changed one appends the new values.
 */
export type ListingKind = 'company' | 'jurisdiction' | 'product';

export interface ListingEntry {
  kind: ListingKind;
  id: string;
  scope: string;
  scopeId: string;
  name: string;
  /** Jurisdictions: the state code; companies: the NAIC company code (or null); products: null. */
  code: string | null;
}

export type ScopeListingEvent = { type: 'ScopeListingEntryRecorded'; data: ListingEntry };
