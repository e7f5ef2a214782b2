import { z } from '../../src/http/zod';
import { FILING_TYPES_NORMALIZED, NORMALIZED_OUTCOMES, sourceReferenceKey, isIsoDateFast as isIsoDate } from '../../src/domain/catalog-enums';
import { LIST_FIELDS } from '../../src/read-models/catalog-list-record';
import type { KeysetPosition, SortKey } from './keyset';

export interface CatalogRow {
  id: string;
  source: string;
  source_reference: string;
  state: string;
  /** Null when the source names no company (a real null, unlike the '' of the other missing text fields). */
  company_name: string | null;
  naic_company_codes: string[] | null;
  naic_group_code: string | null;
  carrier_ids: string[] | null;
  group_id: string | null;
  /** '' when the source gave none (null in the record). */
  product_name: string;
  type_of_insurance: string;
  sub_type_of_insurance: string;
  toi_code: string | null;
  sub_toi_code: string | null;
  filing_type: string;
  source_status: string;
  submission_date: string | null;
  disposition_date: string | null;
  business_type: string;
  normalized_outcome: string;
  filing_type_normalized: string;
  state_status_changed_date: string | null;
  description: string | null;
  files: { fileId: string; name: string; role: string; versionId: string | null }[];
  /** The list record as the projector stored it (src/read-models/catalog-list-record.ts). */
  list_record: string;
}

/** A list page's row: the keyset position (id and the sort columns) and the stored list record. */
export interface CatalogListRow {
  id?: string;
  list_record: string;
  description?: string | null;
  [sortColumn: string]: string | null | undefined;
}

/**
 * What a list page selects: the id and sort columns the keyset and the merged branches order by, and
 * the list record as the projector stored it (src/read-models/catalog-list-record.ts), so neither
 * Postgres nor node builds records per request. Not the files jsonb (detail only); the description only
 * when asked for.
 */
export function catalogListColumns(sortColumns: readonly string[], withDescription: boolean): string[] {
  return ['id', ...sortColumns.filter((c) => c !== 'id'), 'list_record', ...(withDescription ? ['description'] : [])];
}

/**
 * What a page returns per row: the stored record (and the description when asked for). Not the id and
 * sort columns: only the last row's are needed (the next cursor), and they are in its record
 * (keysetPositionOf). 51 rows of a uuid and a date fewer to render in Postgres and to parse in node.
 */
export function catalogPageOutput(withDescription: boolean): string[] {
  return ['list_record', ...(withDescription ? ['description'] : [])];
}

const FIELD_OF_COLUMN = new Map<string, string>(LIST_FIELDS.map(([field, column]) => [column, field]));

/** The list record's field for a column of catalog_filings. */
function recordFieldOf(column: string): string {
  const field = FIELD_OF_COLUMN.get(column);
  if (field === undefined) throw new Error(`column ${column} is not a list record field`);
  return field;
}

/** The date columns of catalog_filings, which the list record holds as YYYY-MM-DD or null. */
const DATE_COLUMNS: ReadonlySet<string> = new Set(['submission_date', 'disposition_date', 'state_status_changed_date']);

/**
 * A date field of a stored list record, found where JSON.stringify writes it instead of parsing the
 * whole record (the cursor of every page reads one). A quote inside a string value is always escaped,
 * so `,"field":` only matches the field itself; anything unexpected is read by JSON.parse.
 */
function recordDate(listRecord: string, column: string): string | null {
  const field = recordFieldOf(column);
  const at = listRecord.indexOf(`,"${field}":`);
  if (at >= 0) {
    const start = at + field.length + 4;
    if (listRecord.startsWith('null', start)) return null;
    const value = listRecord.slice(start + 1, start + 11);
    if (listRecord[start] === '"' && listRecord[start + 11] === '"' && isIsoDate(value)) return value;
  }
  return (JSON.parse(listRecord) as Record<string, string | null>)[field] ?? null;
}

/** A record's id: its first field (LIST_FIELDS), a UUID. */
const ID_PREFIX = '{"id":"';

/**
 * The keyset position after a row, read from its stored record: the record's fields are the row's
 * columns as Postgres renders them (row_to_json; pinned by catalog-list-record.int.test.ts), dates as
 * YYYY-MM-DD, so the values compare in SQL exactly as the columns would. Date keys and the id are read
 * in place (recordDate); other keys parse the record.
 */
export function keysetPositionOf(listRecord: string, keys: readonly SortKey[]): KeysetPosition {
  if (listRecord.startsWith(ID_PREFIX) && listRecord[ID_PREFIX.length + 36] === '"' && keys.every((k) => DATE_COLUMNS.has(k.column))) {
    return { v: keys.map((k) => recordDate(listRecord, k.column)), id: listRecord.slice(ID_PREFIX.length, ID_PREFIX.length + 36) };
  }
  const record = JSON.parse(listRecord) as Record<string, string | null>;
  return {
    v: keys.map((k) => {
      // The sourceReference sort's column, derived from the record's reference as the projector derives it.
      if (k.column === 'source_reference_key') return sourceReferenceKey(record.source!, record.sourceReference!);
      const field = FIELD_OF_COLUMN.get(k.column);
      if (field === undefined) throw new Error(`sort column ${k.column} is not a list record field`);
      return record[field] ?? null;
    }),
    id: record.id!,
  };
}

/** The page's JSON for a row: the stored record, with `description` appended as its last field when asked for. */
export function listRecordText(row: CatalogListRow, withDescription: boolean): string {
  if (!withDescription) return row.list_record;
  return `${row.list_record.slice(0, -1)},"description":${JSON.stringify(row.description ?? null)}}`;
}

export const CatalogFiling = z
  .object({
    id: z.uuid(),
    source: z.enum(['serff', 'florida_irfs']),
    sourceReference: z.string(),
    // The formats the spec gives these fields (the schema only describes; it validates nothing).
    state: z.string().openapi({ pattern: '^[A-Za-z]{2}$' }),
    companyName: z
      .string()
      .nullable()
      .describe('Null when the source names no company: no companyName or companyNameContains filter matches it, and a companyName sort puts it last in both directions.'),
    naicCompanyCodes: z.array(z.string().openapi({ pattern: '^[0-9]{5}$' })).nullable(),
    naicGroupCode: z.string().openapi({ pattern: '^[1-9][0-9]*$', description: 'No leading zeros.' }).nullable(),
    carrierIds: z.array(z.string().openapi({ pattern: '^carrier_' })).nullable(),
    groupId: z.string().openapi({ pattern: '^carrier_group_' }).nullable(),
    productName: z.string().nullable(),
    typeOfInsurance: z.string().nullable(),
    subTypeOfInsurance: z.string().nullable(),
    toiCode: z.string().nullable(),
    subToiCode: z.string().openapi({ pattern: '^[0-9]+\\.[0-9]{4}$' }).nullable(),
    filingType: z.string().nullable(),
    sourceStatus: z.string().nullable(),
    submissionDate: z.string().openapi({ format: 'date' }).nullable(),
    dispositionDate: z.string().openapi({ format: 'date' }).nullable(),
    businessType: z.string().nullable(),
    normalizedOutcome: z.enum(NORMALIZED_OUTCOMES),
    filingTypeNormalized: z.enum(FILING_TYPES_NORMALIZED),
    stateStatusChangedDate: z.string().openapi({ format: 'date' }).nullable(),
    description: z.string().nullable().optional().describe('Only on a lookup with exactly one source and exactly one sourceReference.'),
  })
  .openapi('CatalogFiling');

export const CatalogFilingDetail = CatalogFiling.extend({
  description: z.string().nullable(),
  files: z
    .object({ count: z.number().int(), byRole: z.record(z.string(), z.number().int()) })
    .describe('Summary of the stored files; the inventory itself is GET /filings/{filingId}/files.'),
}).openapi('CatalogFilingDetail');

/** The spec's catalog filing record: every nullable field present, `description` only when asked for. */
export function toCatalogFiling(r: Omit<CatalogRow, 'files' | 'description'> & { description?: string | null }, withDescription: boolean): Record<string, unknown> {
  // From the stored list record, the one the list serves: a text field the source did not give is null
  // there, while its filter column holds '' (projections/catalog/catalog-filing-upsert.ts).
  const record = JSON.parse(r.list_record) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [field] of LIST_FIELDS) out[field] = record[field];
  if (withDescription) out.description = r.description;
  return out;
}

/** Detail = list record + description + a files summary (count and per-role counts). */
export function toCatalogFilingDetail(r: CatalogRow): Record<string, unknown> {
  const byRole: Record<string, number> = {};
  for (const f of r.files) byRole[f.role] = (byRole[f.role] ?? 0) + 1;
  return { ...toCatalogFiling(r, true), files: { count: r.files.length, byRole } };
}
