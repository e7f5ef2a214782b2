import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';
import type { AvailabilityRow, Citation, ProductClaim } from '../../src/domain/directory-records';
import { UUID_ANY_CASE } from '../../src/domain/uuid';

export interface ProductRow {
  id: string;
  name: string;
  product_type: string;
  admitted: boolean;
  predecessor_product_id: string | null;
  note: string | null;
  group_id: string | null;
  group_name: string | null;
  mga_id: string | null;
  mga_name: string | null;
  states: string[];
  availability: AvailabilityRow[];
  claims: ProductClaim[];
  filings: { state: string; filingId: string }[];
}

export function productsWithNames(knex: Knex) {
  return knex(`${DIR.products} as p`)
    .leftJoin(`${DIR.groups} as g`, 'g.id', 'p.group_id')
    .leftJoin(`${DIR.mgas} as m`, 'm.id', 'p.mga_id')
    .select('p.*', 'g.name as group_name', 'm.name as mga_name');
}

export function productBase(r: ProductRow) {
  return {
    id: r.id,
    name: r.name,
    type: r.product_type,
    admitted: r.admitted,
    predecessorProductId: r.predecessor_product_id,
    note: r.note,
    group: r.group_id ? { id: r.group_id, name: r.group_name } : null,
    mga: r.mga_id ? { id: r.mga_id, name: r.mga_name } : null,
  };
}

/**
 * A claim is verified only when it has citations and none of them is evidence the interface cannot
 * retrieve (`kind: unavailable`, e.g. `reason: internal_source`); citations are kept as given.
 */
export function withVerification(c: ProductClaim) {
  const unretrievable = c.citations.some((x) => x.kind === 'unavailable');
  return { ...c, verified: c.citations.length > 0 && !unretrievable };
}

/** The filing a citation names (lower-cased, as the catalog keeps uuids), or null for other kinds. */
const citedFiling = (x: Citation): string | null => (x.kind === 'filing' && typeof x.filingId === 'string' ? x.filingId.toLowerCase() : null);

/** The catalog filing ids the claims cite, only those that can be catalog ids (a uuid column is asked for them). */
export function citedFilingIds(claims: ProductClaim[]): string[] {
  const ids = claims.flatMap((c) => c.citations.map(citedFiling));
  return [...new Set(ids.filter((id): id is string => id !== null && UUID_ANY_CASE.test(id)))];
}

/**
 * The claims as one caller may see them: a citation of a filing outside `visible` is withheld (its id
 * would name a filing whose detail is 404 for the caller); the claim keeps its text and every other field.
 * Verification is then judged on what is left, since only that can be retrieved by this caller.
 */
export function withheldFrom(claims: ProductClaim[], visible: ReadonlySet<string>): ProductClaim[] {
  return claims.map((c) => {
    const citations = c.citations.filter((x) => {
      const id = citedFiling(x);
      return id === null || visible.has(id);
    });
    return citations.length === c.citations.length ? c : { ...c, citations };
  });
}
