import type { Knex } from 'knex';
import {
  CATALOG_SOURCES,
  FILING_TYPES_NORMALIZED,
  NORMALIZED_OUTCOMES,
  isIsoDateFast as isIsoDate,
  sourceReferenceKey,
} from '../../src/domain/catalog-enums';
import { forbidden, invalidRequest } from '../../src/domain/errors';
import { canViewSerff, type Principal } from '../../src/domain/principal';
import { cursorParam, qInt, qList, qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { carrierFilterCodes, groupFilterCodes } from '../directory/directory-resolution';
import { CATALOG_COMPANY_NAMES, CATALOG_PRODUCT_NAMES } from '../../src/read-models/catalog';
import type { SortKey } from './keyset';
import { containsPattern, namesContaining, type NameColumn, type NameMatcher } from './names-containing';
import { inList, raw, sql, type Sql } from '../../infra/postgres/sql';
import { ident } from '../../infra/postgres/sql-ident';

const text = z.string().min(1, 'Must not be empty.').max(500, 'At most 500 characters.');
// The arithmetic check (pinned to the Date-based isIsoDate by its test): through a Date it was ~3 us a
// call, four calls per date-range page.
const date = qScalar(z.string().refine(isIsoDate, 'Must be a date YYYY-MM-DD.'), { type: 'string', format: 'date' });
const code = z.string().min(1).max(20).regex(/^\d+(\.\d+)*$/, 'A normalized code: digits separated by dots, such as 04.0.');

/**
 * The sort keys' columns: whether they may be null, and the direction their index lists them in
 * (projections/catalog/catalog-projector.ts createIndexes; see SortKey in keyset.ts).
 */
export const SORT_COLUMNS = {
  submissionDate: { column: 'submission_date', nullable: true, indexed: 'desc' },
  dispositionDate: { column: 'disposition_date', nullable: true, indexed: 'desc' },
  stateStatusChangedDate: { column: 'state_status_changed_date', nullable: true, indexed: 'desc' },
  companyName: { column: 'company_name', nullable: true, indexed: 'asc' },
  state: { column: 'state', nullable: false, indexed: 'both' },
  // SERFF references compare case-insensitively (spec), so they sort by the same key they are looked up by.
  sourceReference: { column: 'source_reference_key', nullable: false, indexed: 'asc' },
} as const satisfies Record<string, Omit<SortKey, 'desc'>>;
const SORTS = Object.keys(SORT_COLUMNS).flatMap((k) => [k, `-${k}`]) as [string, ...string[]];
/** sortKeys' "a key may appear once", in JSON Schema: no repeat, and never both directions of one key. */
const ONCE_EACH = {
  uniqueItems: true,
  not: { anyOf: Object.keys(SORT_COLUMNS).map((k) => ({ allOf: [{ contains: { const: k } }, { contains: { const: `-${k}` } }] })) },
};

/** GET /insurance/filings query: every parameter of the spec; repeatable ones combine with OR. */
export const CatalogListQuery = z.strictObject({
  limit: qInt(1, 200, 50).optional().describe('1 to 200, default 50'),
  cursor: cursorParam().optional(),
  carrier: qList(text).optional().describe('Directory carrier ID; matched through the carrier\'s current NAIC code; 404 when it matches no catalog identifier.'),
  group: qList(text).optional().describe('Directory group ID; matched through the group\'s NAIC group code and its carriers\' current NAIC codes.'),
  excludeCarrier: qList(text).optional().describe('Excludes filings of these carriers and filings whose carrierIds is null or empty.'),
  state: qList(z.string().regex(/^[A-Za-z]{2}$/, 'Two letters.').transform((s) => s.toUpperCase())).optional(),
  source: qList(z.enum(CATALOG_SOURCES)).optional(),
  sourceReference: qList(text).optional().describe('Exact native reference; SERFF case-insensitive; Florida with or without the FL- prefix (normalized).'),
  companyName: qList(text).optional(),
  productName: qList(text).optional(),
  companyNameContains: qScalar(text).optional(),
  productNameContains: qScalar(text).optional(),
  businessType: qList(text).optional(),
  normalizedOutcome: qList(z.enum(NORMALIZED_OUTCOMES)).optional(),
  filingTypeNormalized: qList(z.enum(FILING_TYPES_NORMALIZED)).optional(),
  toi: qList(code).optional(),
  subToi: qList(code).optional(),
  filingType: qList(text).optional(),
  sourceStatus: qList(text).optional(),
  submissionDateFrom: date.optional(),
  submissionDateTo: date.optional(),
  dispositionDateFrom: date.optional(),
  dispositionDateTo: date.optional(),
  stateStatusChangedDateFrom: date.optional(),
  stateStatusChangedDateTo: date.optional(),
  sort: qList(z.enum(SORTS), 3, ONCE_EACH).optional().describe('Up to three keys, "-" for descending, each key once (not both `x` and `-x`); default -submissionDate; nulls last; id breaks ties.'),
});
export type CatalogListQuery = z.infer<typeof CatalogListQuery>;

/** The spec's default order of the catalog list. */
export const DEFAULT_SORT = ['-submissionDate'];

export function sortKeys(sort: string[] | undefined): SortKey[] {
  const keys = (sort?.length ? sort : DEFAULT_SORT).map((s) => {
    const desc = s.startsWith('-');
    return { name: desc ? s.slice(1) : s, desc };
  });
  const names = keys.map((k) => k.name);
  if (new Set(names).size !== names.length) {
    throw invalidRequest('A sort key may appear once.', [{ location: 'query', path: ['sort'], code: 'invalid_value', message: 'A sort key may appear once.' }]);
  }
  return keys.map(({ name, desc }) => ({ ...SORT_COLUMNS[name as keyof typeof SORT_COLUMNS], desc }));
}

/** Cross-parameter rules of the spec that a per-parameter schema cannot express. */
export function checkCombination(q: CatalogListQuery, principal: Principal): void {
  const needsSource = (['sourceReference', 'sourceStatus', 'filingType'] as const).filter((k) => q[k]?.length);
  if (needsSource.length && q.source?.length !== 1) {
    throw invalidRequest(`${needsSource.join(', ')} need exactly one source.`, [
      { location: 'query', path: ['source'], code: q.source ? 'invalid_value' : 'required', message: `Exactly one source is needed with ${needsSource.join(', ')}.` },
    ]);
  }
  if (q.source?.includes('serff') && !canViewSerff(principal)) throw forbidden('Viewing SERFF filings needs the serff:view permission.');
}

/**
 * The list's filters, resolved once (the carrier and group look-ups may answer 404). `where` writes them
 * as the predicates of one catalog_filings query, with their values (a keyset page may need several
 * queries, one per branch). `byName` is set when a `...Contains` term matched a few names: the
 * same rows are then the disjoint union over those names of
 * `byName.where(name)` (the other filters and `column = name`), which the page reads as one index
 * range of `(name, submission_date desc nulls last, id)` per name (see catalog-list-query.ts).
 */
export interface CatalogFilter {
  where: () => Sql[];
  byName?: { names: string[]; where: (name: string) => Sql[] };
}

/** At most this many matched names are read name by name (see catalog-list-query.ts). */
export const FEW_NAMES = 16;
/**
 * Up to this many matched names, the filter is `name in (...)`: the planner estimates that from the
 * column's statistics (it badly underestimates `like '%...%'`) and picks between the name index and
 * walking the sort's index. Beyond, most filings tend to match and the LIKE filter on the walk is as good.
 */
export const MANY_NAMES = 256;

/**
 * The names padded (repeating the last) to the next power of two: each length is a separate prepared
 * statement, and a connection keeps only so many (infra/postgres/prepared.ts).
 */
function inListOf(names: string[]): string[] {
  if (names.length <= FEW_NAMES) return names;
  const size = 2 ** Math.ceil(Math.log2(names.length));
  return [...names, ...Array<string>(size - names.length).fill(names[names.length - 1])];
}

/**
 * A date bound as a literal, not a bound value. Bound, a range like `submission_date >= $2 and
 * submission_date <= $3` is estimated with Postgres's default range selectivity (0.5 %) in the
 * generic plan, which then costs a little more than the custom plans and is never chosen: every
 * execution was planned again, about as much Postgres CPU as running it (0.2 ms at 1,000,000 filings).
 * As a literal the statement of one date range (a filter paged through, a repeated first page) is
 * planned once per connection; a new range costs the planning it always did, and the prepared
 * statements per connection stay bounded (infra/postgres/prepared.ts). The value was validated as
 * YYYY-MM-DD; checked again because it becomes SQL text.
 */
export function dateLiteral(date: string): string {
  if (!isIsoDate(date)) throw new Error(`not a date: ${date}`);
  return `date '${date}'`;
}

/**
 * `names`: the API's copy of the names tables (catalog-names-cache.ts), whose freshness the caller
 * checks against the page's own snapshot; without it, each term is looked up in the names tables.
 */
export async function catalogFilter(knex: Knex, q: CatalogListQuery, principal: Principal, names?: NameMatcher): Promise<CatalogFilter> {
  const carrierCodes = q.carrier ? await carrierFilterCodes(knex, q.carrier, 'carrier') : null;
  const group = q.group ? await groupFilterCodes(knex, q.group) : null;
  const excludedCodes = q.excludeCarrier ? await carrierFilterCodes(knex, q.excludeCarrier, 'excludeCarrier') : null;
  const serff = canViewSerff(principal);
  // Each substring is matched in the small table of distinct names; null: more than MANY_NAMES matched.
  const contains: { column: NameColumn; term: string; names: string[] | null }[] = [];
  const matching = async (column: NameColumn, table: string, term: string) => (names ? names.matching(column, term, MANY_NAMES) : namesContaining(knex, table, term, MANY_NAMES));
  if (q.companyNameContains) contains.push({ column: 'company_name', term: q.companyNameContains, names: await matching('company_name', CATALOG_COMPANY_NAMES, q.companyNameContains) });
  if (q.productNameContains) contains.push({ column: 'product_name', term: q.productNameContains, names: await matching('product_name', CATALOG_PRODUCT_NAMES, q.productNameContains) });
  const split = contains.filter((c) => c.names?.length && c.names.length <= FEW_NAMES).sort((a, b) => a.names!.length - b.names!.length)[0];
  const where = (one?: { column: NameColumn; name: string }): Sql[] => {
    const w: Sql[] = [];
    // Without serff:view, SERFF filings are simply absent (DESIGN.md).
    if (!serff) w.push(sql`"source" <> ${'serff'}`);
    if (q.source) w.push(inList('source', q.source));
    if (q.sourceReference) w.push(inList('source_reference_key', q.sourceReference.map((r) => sourceReferenceKey(q.source![0], r))));
    if (q.state) w.push(inList('state', q.state));
    if (q.companyName) w.push(inList('company_name', q.companyName));
    if (q.productName) w.push(inList('product_name', q.productName));
    for (const c of contains) {
      if (one?.column === c.column) w.push(sql`${raw(ident(c.column))} = ${one.name}`);
      // Exactly the filings whose name contains the term, since every filing's name is in the names table
      // (none matched: `1 = 0`, no scan at all).
      else if (c.names) w.push(inList(c.column, inListOf(c.names)));
      else w.push(sql`lower(${raw(ident(c.column))}) like lower(${containsPattern(c.term)})`);
    }
    if (q.businessType) w.push(inList('business_type', q.businessType));
    if (q.normalizedOutcome) w.push(inList('normalized_outcome', q.normalizedOutcome));
    if (q.filingTypeNormalized) w.push(inList('filing_type_normalized', q.filingTypeNormalized));
    // Null codes never equal anything, so filings without normalized codes never match.
    if (q.toi) w.push(inList('toi_code', q.toi));
    if (q.subToi) w.push(inList('sub_toi_code', q.subToi));
    if (q.filingType) w.push(inList('filing_type', q.filingType));
    if (q.sourceStatus) w.push(inList('source_status', q.sourceStatus));
    // Inclusive bounds; a filing lacking the date fails the comparison and is excluded. Written into the
    // SQL (see dateLiteral).
    if (q.submissionDateFrom) w.push(raw(`"submission_date" >= ${dateLiteral(q.submissionDateFrom)}`));
    if (q.submissionDateTo) w.push(raw(`"submission_date" <= ${dateLiteral(q.submissionDateTo)}`));
    if (q.dispositionDateFrom) w.push(raw(`"disposition_date" >= ${dateLiteral(q.dispositionDateFrom)}`));
    if (q.dispositionDateTo) w.push(raw(`"disposition_date" <= ${dateLiteral(q.dispositionDateTo)}`));
    if (q.stateStatusChangedDateFrom) w.push(raw(`"state_status_changed_date" >= ${dateLiteral(q.stateStatusChangedDateFrom)}`));
    if (q.stateStatusChangedDateTo) w.push(raw(`"state_status_changed_date" <= ${dateLiteral(q.stateStatusChangedDateTo)}`));
    if (carrierCodes) w.push(sql`"naic_company_codes" && ${carrierCodes}::text[]`);
    if (group) w.push(sql`(${inList('naic_group_code', group.groupCodes)} or "naic_company_codes" && ${group.companyCodes}::text[])`);
    if (excludedCodes) {
      // A filing whose carrier is unknown (carrierIds null or empty) is excluded too (DESIGN.md).
      w.push(raw('cardinality("carrier_ids") > 0'), sql`not (coalesce("naic_company_codes", ${'{}'}::text[]) && ${excludedCodes}::text[])`);
    }
    return w;
  };
  return {
    where: () => where(),
    byName: split && { names: split.names!, where: (name) => where({ column: split.column, name }) },
  };
}
