import type { ProductType } from './vocabulary';

export type FileRole = 'form' | 'rate' | 'rule' | 'supporting_document' | 'correspondence' | 'other';

/** What a document of a filing talks about. */
export interface DocContext {
  companyName: string;
  productName: string;
  productType: ProductType;
  state: string;
  stateName: string;
  toiLabel: string;
  subToiLabel: string;
  reference: string;
  referenceLabel: string;
  filingType: string;
  submissionDate: string;
  effectiveDate: string;
  /** Distinctive terms this filing is about (features of the line, sometimes a rare term). */
  terms: string[];
  indicatedChange: number;
  selectedChange: number;
  formPrefix: string;
}

/** Kind of document within a role, which picks the file name and the writing. */
export type DocKind =
  | 'actuarial_memorandum' | 'rate_exhibits' | 'policy_form' | 'endorsement' | 'rule_manual'
  | 'objection_letter' | 'objection_response' | 'explanatory_memorandum' | 'cover_letter' | 'certification';
