import type { Knex } from 'knex';
import { DIR } from '../../projections/directory/directory-projector';
import type { AvailabilityRow, ProductClaim } from '../../commands/directory/directory-records';

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
