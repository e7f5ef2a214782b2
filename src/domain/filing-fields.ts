/** The enumerations and field set of a managed filing, shared by the decider, the routes and the importer. */
export const FILING_TYPES = ['form', 'rate', 'rule', 'form_rate', 'form_rule', 'rate_rule', 'form_rate_rule', 'adoption', 'withdrawal'] as const;
export const REVIEW_TYPES = ['prior_approval', 'file_and_use', 'use_and_file', 'informational'] as const;
export const DISPOSITIONS = ['pending', 'approved', 'filed', 'acknowledged', 'deemed_approved', 'disapproved', 'withdrawn', 'closed'] as const;
export const SCHEDULE_TYPES = ['form', 'rate', 'rule', 'supporting_document'] as const;

export type FilingType = (typeof FILING_TYPES)[number];
export type ReviewType = (typeof REVIEW_TYPES)[number];
export type Disposition = (typeof DISPOSITIONS)[number];
export type ScheduleType = (typeof SCHEDULE_TYPES)[number];
export type FilingMode = 'managed' | 'reference' | null;

/** Every editable field of a filing; nullable ones are null when missing, never absent. */
export interface FilingFields {
  companyId: string;
  jurisdictionId: string;
  primaryProductId: string;
  additionalProductIds: string[];
  predecessorFilingId: string | null;
  projectId: string | null;
  filingType: FilingType;
  description: string | null;
  serffTrackingNumber: string | null;
  stateTrackingNumber: string | null;
  companyTrackingNumber: string | null;
  reviewType: ReviewType | null;
  toiCode: string | null;
  subToiCode: string | null;
  disposition: Disposition | null;
  dispositionDate: string | null;
  effectiveFromNew: string | null;
  effectiveFromRenewal: string | null;
}

export const FILING_FIELD_NAMES: (keyof FilingFields)[] = [
  'companyId',
  'jurisdictionId',
  'primaryProductId',
  'additionalProductIds',
  'predecessorFilingId',
  'projectId',
  'filingType',
  'description',
  'serffTrackingNumber',
  'stateTrackingNumber',
  'companyTrackingNumber',
  'reviewType',
  'toiCode',
  'subToiCode',
  'disposition',
  'dispositionDate',
  'effectiveFromNew',
  'effectiveFromRenewal',
];

/** Fills the optional fields of a create body with null / [] so the record is always complete. */
export function completeFields(input: Partial<FilingFields> & Pick<FilingFields, 'companyId' | 'jurisdictionId' | 'primaryProductId' | 'filingType'>): FilingFields {
  return {
    companyId: input.companyId,
    jurisdictionId: input.jurisdictionId,
    primaryProductId: input.primaryProductId,
    additionalProductIds: input.additionalProductIds ?? [],
    predecessorFilingId: input.predecessorFilingId ?? null,
    projectId: input.projectId ?? null,
    filingType: input.filingType,
    description: input.description ?? null,
    serffTrackingNumber: input.serffTrackingNumber ?? null,
    stateTrackingNumber: input.stateTrackingNumber ?? null,
    companyTrackingNumber: input.companyTrackingNumber ?? null,
    reviewType: input.reviewType ?? null,
    toiCode: input.toiCode ?? null,
    subToiCode: input.subToiCode ?? null,
    disposition: input.disposition ?? null,
    dispositionDate: input.dispositionDate ?? null,
    effectiveFromNew: input.effectiveFromNew ?? null,
    effectiveFromRenewal: input.effectiveFromRenewal ?? null,
  };
}

/** The contract's displayName: first available SERFF, state or company tracking number, else the id. */
export function displayNameOf(id: string, f: Pick<FilingFields, 'serffTrackingNumber' | 'stateTrackingNumber' | 'companyTrackingNumber'>): string {
  return f.serffTrackingNumber ?? f.stateTrackingNumber ?? f.companyTrackingNumber ?? id;
}
