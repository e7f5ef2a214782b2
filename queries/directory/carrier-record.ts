import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';

export interface CarrierListRow {
  id: string;
  name: string;
  identifiers: { scheme: string; value: string }[];
  group_id: string | null;
  group_name: string | null;
  domicile: string | null;
  status: string | null;
  aliases: string[];
  gross_premium_written: { year: number; amount: number } | null;
  cession_ratio: { year: number; value: number } | null;
  merged_into: string | null;
}

/** Carriers with their group's name joined in. */
export function carriersWithGroup(knex: Knex) {
  return knex(`${DIR.carriers} as c`)
    .leftJoin(`${DIR.groups} as g`, 'g.id', 'c.group_id')
    .select('c.id', 'c.name', 'c.identifiers', 'c.group_id', 'g.name as group_name', 'c.domicile', 'c.status', 'c.aliases', 'c.gross_premium_written', 'c.cession_ratio', 'c.merged_into');
}

export function toCarrier(r: CarrierListRow) {
  return {
    id: r.id,
    identifiers: r.identifiers,
    name: r.name,
    group: r.group_id ? { id: r.group_id, name: r.group_name } : null,
    domicile: r.domicile,
    status: r.status,
    grossPremiumWritten: r.gross_premium_written,
    cessionRatio: r.cession_ratio,
  };
}
