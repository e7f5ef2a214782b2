import type { ImportFile } from '../../src/ports/file-ingest';
import type { CatalogFilingImportRecord } from './catalog-filing-schema';
import {
  CATALOG_SOURCES,
  FILE_ROLES,
  FILING_TYPES_NORMALIZED,
  NAIC_COMPANY_CODE,
  NORMALIZED_OUTCOMES,
  SUB_TOI_CODE,
  TOI_CODE,
  isIsoDateFast,
  normalizeNaicGroupCode,
  normalizeSourceReference,
} from '../../src/domain/catalog-enums';

/**
 * The common, well-formed `catalog_filing` record checked by hand: the zod schema cost about 90 µs a
 * record, most of an import's validation budget. This returns exactly what `catalogFilingRecord`
 * would (same values, defaults and normalisations) when it can tell the record is valid, and null
 * for ANY doubt, so the caller falls back to the zod schema, which stays the single source of
 * acceptance and of every error message. A property test pins the two together.
 */

const UUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const STATE = /^[A-Za-z]{2}$/;
const NAIC_GROUP = /^\d{1,5}$/;
const CARRIER_ID = /^carrier_(?!group_)[A-Za-z0-9_-]+$/;
const GROUP_ID = /^carrier_group_[A-Za-z0-9_-]+$/;

const SOURCES = new Set<string>(CATALOG_SOURCES);
const OUTCOMES = new Set<string>(NORMALIZED_OUTCOMES);
const TYPES_NORMALIZED = new Set<string>(FILING_TYPES_NORMALIZED);
const ROLES = new Set<string>(FILE_ROLES);

const RECORD_KEYS = new Set([
  'type', 'id', 'source', 'sourceReference', 'state', 'companyName', 'naicCompanyCodes', 'naicGroupCode', 'carrierIds', 'groupId',
  'productName', 'typeOfInsurance', 'subTypeOfInsurance', 'toiCode', 'subToiCode', 'filingType', 'sourceStatus', 'submissionDate',
  'dispositionDate', 'businessType', 'normalizedOutcome', 'filingTypeNormalized', 'stateStatusChangedDate', 'description', 'files',
]);
const FILE_KEYS = new Set(['fileId', 'name', 'role', 'versionId', 'mimeType', 'restricted', 'content', 'text']);

/** Thrown inside the check for "not sure": never escapes it. */
const DOUBT = Symbol('doubt');

function doubt(): never {
  throw DOUBT;
}

function onlyKeys(o: object, allowed: Set<string>): void {
  for (const k of Object.keys(o)) if (!allowed.has(k)) doubt();
}

function plainObject(v: unknown): Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) doubt();
  return v as Record<string, unknown>;
}

function str(v: unknown, max: number, min = 0): string {
  if (typeof v !== 'string' || v.length > max || v.length < min) doubt();
  return v;
}

function matching(v: unknown, re: RegExp): string {
  if (typeof v !== 'string' || !re.test(v)) doubt();
  return v;
}

/** `null` for an absent or null field (the schema's `.nullable().default(null)`), else `check(v)`. */
function orNull<T>(v: unknown, check: (v: unknown) => T): T | null {
  return v === undefined || v === null ? null : check(v);
}

function oneOf(v: unknown, values: Set<string>): string {
  if (typeof v !== 'string' || !values.has(v)) doubt();
  return v;
}

function arrayOf<T>(v: unknown, max: number, each: (x: unknown) => T): T[] {
  if (!Array.isArray(v) || v.length > max) doubt();
  const out: T[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = each(v[i]);
  return out;
}

function date(v: unknown): string | null {
  return orNull(v, (x) => {
    if (typeof x !== 'string' || !isIsoDateFast(x)) doubt();
    return x;
  });
}

const uuid = (v: unknown) => matching(v, UUID).toLowerCase();
const text = (v: unknown) => str(v, 20000);

function file(v: unknown): ImportFile {
  const f = plainObject(v);
  onlyKeys(f, FILE_KEYS);
  const content = orNull(f.content, (c) => {
    const o = plainObject(c);
    const keys = Object.keys(o);
    if (keys.length !== 1) doubt();
    if (keys[0] === 'path') return { path: str(o.path, Infinity, 1) };
    if (keys[0] === 'base64') return { base64: str(o.base64, Infinity) };
    return doubt();
  });
  const textPages = orNull(f.text, (t) => {
    const o = plainObject(t);
    onlyKeys(o, PAGES_KEYS);
    return { pages: arrayOf(o.pages, Infinity, (p) => str(p, Infinity)) };
  });
  return {
    fileId: uuid(f.fileId),
    name: str(f.name, 1000, 1),
    role: oneOf(f.role, ROLES) as ImportFile['role'],
    versionId: orNull(f.versionId, (x) => str(x, 256, 1)),
    mimeType: f.mimeType === undefined ? 'application/octet-stream' : str(f.mimeType, 255, 1),
    restricted: f.restricted === undefined ? false : typeof f.restricted === 'boolean' ? f.restricted : doubt(),
    content,
    text: textPages,
  };
}
const PAGES_KEYS = new Set(['pages']);

function check(record: Record<string, unknown>): CatalogFilingImportRecord {
  onlyKeys(record, RECORD_KEYS);
  if (record.type !== 'catalog_filing') doubt();
  const source = oneOf(record.source, SOURCES) as CatalogFilingImportRecord['source'];
  const sourceReference = typeof record.sourceReference === 'string' ? str(record.sourceReference.trim(), 256, 1) : doubt();
  const toiCode = orNull(record.toiCode, (x) => matching(x, TOI_CODE));
  const subToiCode = orNull(record.subToiCode, (x) => matching(x, SUB_TOI_CODE));
  // The schema's cross-field rules: anything it would reject goes to zod for the message.
  if (subToiCode && toiCode && subToiCode.slice(0, 2) !== toiCode.slice(0, 2)) doubt();
  const reference = normalizeSourceReference(source, sourceReference);
  if (reference === '') doubt();
  return {
    type: 'catalog_filing',
    id: uuid(record.id),
    source,
    sourceReference: reference,
    state: matching(record.state, STATE).toUpperCase(),
    companyName: orNull(record.companyName, text),
    naicCompanyCodes: orNull(record.naicCompanyCodes, (x) => arrayOf(x, Infinity, (c) => matching(c, NAIC_COMPANY_CODE))),
    naicGroupCode: orNull(record.naicGroupCode, (x) => normalizeNaicGroupCode(matching(x, NAIC_GROUP))),
    carrierIds: orNull(record.carrierIds, (x) => arrayOf(x, Infinity, (c) => matching(c, CARRIER_ID))),
    groupId: orNull(record.groupId, (x) => matching(x, GROUP_ID)),
    productName: orNull(record.productName, text),
    typeOfInsurance: orNull(record.typeOfInsurance, text),
    subTypeOfInsurance: orNull(record.subTypeOfInsurance, text),
    toiCode,
    subToiCode,
    filingType: orNull(record.filingType, text),
    sourceStatus: orNull(record.sourceStatus, text),
    submissionDate: date(record.submissionDate),
    dispositionDate: date(record.dispositionDate),
    businessType: orNull(record.businessType, text),
    normalizedOutcome: oneOf(record.normalizedOutcome, OUTCOMES) as CatalogFilingImportRecord['normalizedOutcome'],
    filingTypeNormalized: oneOf(record.filingTypeNormalized, TYPES_NORMALIZED) as CatalogFilingImportRecord['filingTypeNormalized'],
    stateStatusChangedDate: date(record.stateStatusChangedDate),
    description: orNull(record.description, (x) => str(x, 100000)),
    files: record.files === undefined ? [] : arrayOf(record.files, 10000, file),
  };
}

/** The parsed record when it is certainly valid, else null (then the zod schema decides and explains). */
export function fastCatalogFilingRecord(record: Record<string, unknown>): CatalogFilingImportRecord | null {
  try {
    return check(record);
  } catch (e) {
    if (e === DOUBT) return null;
    throw e;
  }
}
