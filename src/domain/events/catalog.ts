/**
 * Catalog filing events: the contract between the importer (which appends them), the catalog read
 * models and the files/search read models. Stream: `catalogFiling-<filing uuid>`.
 */

export type CatalogSource = 'serff' | 'florida_irfs';
export type FileRole = 'form' | 'rate' | 'rule' | 'supporting_document' | 'correspondence' | 'other';

/** The catalog filing record of the spec, with its own field names, plus description. */
export interface CatalogFilingFields {
  id: string;
  source: CatalogSource;
  sourceReference: string;
  state: string;
  /** Null when the source names no company (events before nullable names always carry one). */
  companyName: string | null;
  naicCompanyCodes: string[] | null;
  naicGroupCode: string | null;
  carrierIds: string[] | null;
  groupId: string | null;
  productName: string | null;
  typeOfInsurance: string | null;
  subTypeOfInsurance: string | null;
  toiCode: string | null;
  subToiCode: string | null;
  filingType: string | null;
  sourceStatus: string | null;
  submissionDate: string | null;
  dispositionDate: string | null;
  businessType: string | null;
  normalizedOutcome: string;
  filingTypeNormalized: string;
  stateStatusChangedDate: string | null;
  description: string | null;
}

/** Where a file's extracted text lives and how its bytes map to pages. */
export interface ExtractedText {
  /** Identifies this extraction (not the original's version): the SHA-256 of the text, shortened. */
  textRevision: string;
  /** Blob key of the UTF-8 text; pages are separated by a form feed. */
  textSha256: string;
  byteLength: number;
  /** Byte offset where each page starts (page n = index n-1); empty when there is no page map. */
  pageStarts: number[];
  method: 'provided' | 'pdf' | 'plain_text';
}

export interface CatalogFile {
  fileId: string;
  name: string;
  role: FileRole;
  versionId: string | null;
  mimeType: string;
  restricted: boolean;
  /** Blob key of the original, null when the record gave no content. */
  contentSha256: string | null;
  size: number | null;
  pageCount: number | null;
  /** Null: no extraction exists (text requests answer 409 text_unavailable). */
  text: ExtractedText | null;
}

export type CatalogFilingEvent =
  | { type: 'CatalogFilingImported'; data: { filing: CatalogFilingFields; files: CatalogFile[] } }
  /** A re-import that changed something: the full new record (snapshot semantics keep projectors simple). */
  | { type: 'CatalogFilingUpdated'; data: { filing: CatalogFilingFields; files: CatalogFile[] } };
