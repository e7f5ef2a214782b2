import { isIsoDate } from '../../src/domain/catalog-enums';
import type { IndexFilter } from '../../src/ports/search-index';

/**
 * Every accepted filter `field` × `operator`, with its value type. docs/search.md reproduces this
 * table; anything else is 400 invalid_request with a detail at filters[i].
 */
type ValueKind = 'string' | 'strings' | 'date' | 'dateRange';

/**
 * What one string value must be, declared once: the request check and the OpenAPI schema of the filter
 * (a discriminated union of the accepted field/operator/value shapes) are both derived from it.
 */
type ValueRule =
  | { kind: 'text'; max: number }
  | { kind: 'pattern'; pattern: string; what: string; max?: number }
  | { kind: 'enum'; values: readonly string[] };

interface FieldSpec {
  operators: Partial<Record<string, ValueKind>>;
  value?: ValueRule;
  /** Narrowing filters make quoted phrases count (spec: state, company, NAIC code, tracking number, date). */
  narrowing?: (op: string) => boolean;
}

const OUTCOMES = ['APPROVED', 'FILED', 'ACKNOWLEDGED', 'INFORMATIONAL', 'REJECTED', 'WITHDRAWN', 'PENDING', 'UNKNOWN'];
const FILING_TYPES = [
  'FORM', 'RATE', 'RULE', 'RATE_RULE', 'FORM_RATE', 'FORM_RULE', 'FORM_RATE_RULE', 'ENDORSEMENT', 'LOSS_COST', 'ADVERTISING', 'CERTIFICATION',
  'CONTRACT', 'CONSENT_TO_RATE', 'DEVIATIONS', 'INFORMATIONAL', 'NEW_PROGRAM', 'REPORT', 'SERVICE_CONTRACT', 'UNDERWRITING_GUIDE',
  'ANNUAL_FORMS_LIST', 'MANUSCRIPT', 'POLICY_FORM', 'PREDICTIVE_MODEL', 'ORGANIZATION_ADOPTION', 'OTHER',
];
const text = (max: number): ValueRule => ({ kind: 'text', max });
const always = () => true;
// Normalized TOI and sub-TOI codes, as the catalog list's toi/subToi take them (spec: 1 to 20 characters).
const normalizedCode = (example: string): ValueRule => ({
  kind: 'pattern',
  pattern: '^\\d+(\\.\\d+)*$',
  max: 20,
  what: `a normalized code such as ${example} (digits separated by dots, 1 to 20 characters)`,
});
const dates = { gte: 'date', lte: 'date', between: 'dateRange' } as const;

export const FILTER_FIELDS: Record<string, FieldSpec> = {
  state: { operators: { eq: 'string', in: 'strings' }, value: { kind: 'pattern', pattern: '^[A-Za-z]{2}$', what: 'a two-letter state code' }, narrowing: always },
  carrierIds: { operators: { containsAny: 'strings', notContainsAny: 'strings' }, value: text(500), narrowing: (op) => op === 'containsAny' },
  naicCompanyCodes: { operators: { containsAny: 'strings', notContainsAny: 'strings' }, value: { kind: 'pattern', pattern: '^\\d{5}$', what: 'a five-digit NAIC company code' }, narrowing: (op) => op === 'containsAny' },
  groupId: { operators: { eq: 'string', in: 'strings' }, value: text(500) },
  toiCode: { operators: { eq: 'string', in: 'strings' }, value: normalizedCode('04.0') },
  subToiCode: { operators: { eq: 'string', in: 'strings' }, value: normalizedCode('04.0000') },
  companyName: { operators: { eq: 'string', contains: 'string' }, value: text(500), narrowing: always },
  productName: { operators: { eq: 'string', contains: 'string' }, value: text(500) },
  submissionDate: { operators: dates, narrowing: always },
  dispositionDate: { operators: dates, narrowing: always },
  stateStatusChangedDate: { operators: dates, narrowing: always },
  trackingNumber: { operators: { eq: 'string', in: 'strings' }, value: text(256), narrowing: always },
  normalizedOutcome: { operators: { eq: 'string', in: 'strings' }, value: { kind: 'enum', values: OUTCOMES } },
  filingTypeNormalized: { operators: { eq: 'string', in: 'strings' }, value: { kind: 'enum', values: FILING_TYPES } },
  source: { operators: { eq: 'string' }, value: { kind: 'enum', values: ['serff', 'florida_irfs'] } },
};

/** A message when `v` breaks the rule, else null. */
function checkValue(rule: ValueRule, v: string): string | null {
  switch (rule.kind) {
    case 'text':
      return v.length >= 1 && v.length <= rule.max ? null : `Must be 1 to ${rule.max} characters.`;
    case 'pattern':
      if (rule.max !== undefined && (v.length < 1 || v.length > rule.max)) return `Must be 1 to ${rule.max} characters.`;
      return new RegExp(rule.pattern).test(v) ? null : `Must be ${rule.what}.`;
    case 'enum':
      return rule.values.includes(v) ? null : `Must be one of ${rule.values.join(', ')}.`;
  }
}

function valueSchema(rule: ValueRule | undefined): Record<string, unknown> {
  if (!rule) return { type: 'string' };
  switch (rule.kind) {
    case 'text':
      return { type: 'string', minLength: 1, maxLength: rule.max };
    case 'pattern':
      return { type: 'string', pattern: rule.pattern, ...(rule.max ? { minLength: 1, maxLength: rule.max } : {}) };
    case 'enum':
      return { type: 'string', enum: [...rule.values] };
  }
}

const DATE_SCHEMA = { type: 'string', format: 'date' };

/** The JSON Schema of every accepted filter: one variant per field and value kind, `value` always required. */
export function filterSchemaVariants(): Record<string, unknown>[] {
  const variants: Record<string, unknown>[] = [];
  for (const [field, spec] of Object.entries(FILTER_FIELDS)) {
    const byKind = new Map<ValueKind, string[]>();
    for (const [op, kind] of Object.entries(spec.operators)) if (kind) byKind.set(kind, [...(byKind.get(kind) ?? []), op]);
    for (const [kind, ops] of byKind) {
      const one = valueSchema(spec.value);
      const value =
        kind === 'string' ? one
        : kind === 'strings' ? { type: 'array', items: one, minItems: 1, maxItems: 100 }
        : kind === 'date' ? DATE_SCHEMA
        : { type: 'array', items: DATE_SCHEMA, minItems: 2, maxItems: 2, description: '[from, to], inclusive; from <= to' };
      variants.push({
        type: 'object',
        additionalProperties: false,
        required: ['field', 'operator', 'value'],
        properties: { field: { const: field }, operator: ops.length === 1 ? { const: ops[0] } : { enum: ops }, value },
      });
    }
  }
  return variants;
}

export interface RawFilter {
  field: string;
  operator: string;
  value: unknown;
}

/** The catalog's own date rule (isIsoDate: a calendar date Postgres's `date` can hold, so no year 0000). */
function isDate(v: unknown): v is string {
  return typeof v === 'string' && isIsoDate(v);
}

/** Problems of one filter as [path below the filter, message]; empty when it is valid. */
export function filterProblems(f: RawFilter): { path: string[]; message: string; code: 'invalid_value' | 'invalid_type' }[] {
  const spec = FILTER_FIELDS[f.field];
  if (!spec) return [{ path: ['field'], code: 'invalid_value', message: `Unknown filter field "${String(f.field).slice(0, 40)}"; see docs/search.md.` }];
  const kind = spec.operators[f.operator];
  if (!kind) return [{ path: ['operator'], code: 'invalid_value', message: `Field ${f.field} takes operator ${Object.keys(spec.operators).join(', ')}.` }];
  const v = f.value;
  switch (kind) {
    case 'string': {
      if (typeof v !== 'string') return [{ path: ['value'], code: 'invalid_type', message: `${f.field} ${f.operator} takes a string.` }];
      const m = spec.value ? checkValue(spec.value, v) : null;
      return m ? [{ path: ['value'], code: 'invalid_value', message: m }] : [];
    }
    case 'strings': {
      if (!Array.isArray(v) || v.length < 1 || v.length > 100) return [{ path: ['value'], code: Array.isArray(v) ? 'invalid_value' : 'invalid_type', message: `${f.field} ${f.operator} takes an array of 1 to 100 strings.` }];
      for (let i = 0; i < v.length; i++) {
        if (typeof v[i] !== 'string') return [{ path: ['value', String(i)], code: 'invalid_type', message: 'Must be a string.' }];
        const m = spec.value ? checkValue(spec.value, v[i] as string) : null;
        if (m) return [{ path: ['value', String(i)], code: 'invalid_value', message: m }];
      }
      return [];
    }
    case 'date':
      return isDate(v) ? [] : [{ path: ['value'], code: typeof v === 'string' ? 'invalid_value' : 'invalid_type', message: 'Must be a date YYYY-MM-DD.' }];
    case 'dateRange':
      if (!Array.isArray(v) || v.length !== 2 || !isDate(v[0]) || !isDate(v[1])) {
        const typed = Array.isArray(v) && v.every((x) => typeof x === 'string');
        return [{ path: ['value'], code: typed ? 'invalid_value' : 'invalid_type', message: 'between takes [from, to] dates YYYY-MM-DD (inclusive).' }];
      }
      return v[0] <= v[1] ? [] : [{ path: ['value'], code: 'invalid_value', message: 'The range ends before it starts.' }];
  }
}

export function isNarrowing(f: RawFilter): boolean {
  return FILTER_FIELDS[f.field]?.narrowing?.(f.operator) ?? false;
}

/** trackingNumber values: Florida references carry an `FL-` prefix (stored without it); others are SERFF. */
export function parseTrackingNumber(v: string): { source: 'serff' | 'florida_irfs'; reference: string } {
  return /^FL-/i.test(v) ? { source: 'florida_irfs', reference: v.slice(3) } : { source: 'serff', reference: v };
}

/**
 * A `groupId` filter as the directory resolved it (search-directory-filters.ts): the indexes hold codes, not the
 * directory's view of a group. Not a field of the request (FILTER_FIELDS): only the endpoint writes it.
 */
export const RESOLVED_GROUP = 'resolvedGroup';
export interface GroupCodes {
  naicGroupCodes: string[];
  naicCompanyCodes: string[];
}

/** A validated raw filter as the index's normalized form. */
export function toIndexFilter(f: RawFilter): IndexFilter {
  if (f.field === RESOLVED_GROUP) return { kind: 'group', ...(f.value as GroupCodes) };
  // A directory group id means nothing to the index; matching the filings' own groupId field is not the list's rule.
  if (f.field === 'groupId') throw new Error('a groupId filter must be resolved through the directory first (resolveDirectoryFilters)');
  const values = (Array.isArray(f.value) ? f.value : [f.value]) as string[];
  switch (f.field) {
    case 'carrierIds':
    case 'naicCompanyCodes':
      return { kind: 'arrayAny', field: f.field, values, negate: f.operator === 'notContainsAny' };
    case 'submissionDate':
    case 'dispositionDate':
    case 'stateStatusChangedDate':
      if (f.operator === 'between') return { kind: 'date', field: f.field, from: values[0], to: values[1] };
      return { kind: 'date', field: f.field, from: f.operator === 'gte' ? values[0] : null, to: f.operator === 'lte' ? values[0] : null };
    case 'trackingNumber':
      return { kind: 'reference', refs: values.map(parseTrackingNumber) };
    case 'companyName':
    case 'productName':
      return f.operator === 'contains' ? { kind: 'contains', field: f.field, value: values[0] } : { kind: 'in', field: f.field, values };
    case 'state':
    case 'toiCode':
    case 'subToiCode':
    case 'normalizedOutcome':
    case 'filingTypeNormalized':
    case 'source':
      return { kind: 'in', field: f.field, values };
    default:
      throw new Error(`unvalidated filter field ${f.field}`);
  }
}
