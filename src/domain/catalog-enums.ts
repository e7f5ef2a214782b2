/** Enumerations of the spec's "States and transitions", shared by import validation and query filters. */
export const CATALOG_SOURCES = ['serff', 'florida_irfs'] as const;

export const NORMALIZED_OUTCOMES = ['APPROVED', 'FILED', 'ACKNOWLEDGED', 'INFORMATIONAL', 'REJECTED', 'WITHDRAWN', 'PENDING', 'UNKNOWN'] as const;

export const FILING_TYPES_NORMALIZED = [
  'FORM', 'RATE', 'RULE', 'RATE_RULE', 'FORM_RATE', 'FORM_RULE', 'FORM_RATE_RULE', 'ENDORSEMENT', 'LOSS_COST', 'ADVERTISING',
  'CERTIFICATION', 'CONTRACT', 'CONSENT_TO_RATE', 'DEVIATIONS', 'INFORMATIONAL', 'NEW_PROGRAM', 'REPORT', 'SERVICE_CONTRACT',
  'UNDERWRITING_GUIDE', 'ANNUAL_FORMS_LIST', 'MANUSCRIPT', 'POLICY_FORM', 'PREDICTIVE_MODEL', 'ORGANIZATION_ADOPTION', 'OTHER',
] as const;

export const FILE_ROLES = ['form', 'rate', 'rule', 'supporting_document', 'correspondence', 'other'] as const;

/** Normalized TOI: two digits, dot, one digit (`04.0`); sub-TOI: four digits after the dot (`04.0003`). */
export const TOI_CODE = /^\d{2}\.\d$/;
export const SUB_TOI_CODE = /^\d{2}\.\d{4}$/;
export const NAIC_COMPANY_CODE = /^\d{5}$/;

/**
 * A real calendar date in YYYY-MM-DD that Postgres's `date` can hold: not year 0000, which Date accepts
 * but Postgres refuses (a list filter with it was a 500, an imported one an event no projection could apply).
 */
export function isIsoDate(s: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(s) || s.startsWith('0000')) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** `isIsoDate` by arithmetic (proleptic Gregorian calendar, as Date uses) instead of through a Date. */
export function isIsoDateFast(s: string): boolean {
  const m = ISO_DATE.exec(s);
  if (!m) return false;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  // No year 0: Postgres's date has none (isIsoDate).
  if (year < 1 || month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]);
}

/**
 * Florida file log numbers are stored without the `FL-` prefix (the search API's tracking numbers
 * carry it): accepting it on input and stripping it keeps both spellings pointing at one filing.
 */
export function normalizeSourceReference(source: string, ref: string): string {
  const r = ref.trim();
  return source === 'florida_irfs' ? r.replace(/^FL-/i, '') : r;
}

/** SERFF tracking numbers compare case-insensitively; Florida log numbers are digits and hyphens. */
export function sourceReferenceKey(source: string, ref: string): string {
  const r = normalizeSourceReference(source, ref);
  return source === 'serff' ? r.toUpperCase() : r;
}

/** NAIC group codes carry no leading zeros in the catalog; registrations may keep them. */
export function normalizeNaicGroupCode(code: string): string {
  const s = code.trim().replace(/^0+/, '');
  return s === '' ? '0' : s;
}
