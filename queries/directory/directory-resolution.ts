import type { Knex } from 'knex';
import { normalizeNaicGroupCode } from '../../src/domain/catalog-enums';
import { notFound } from '../../src/domain/errors';
import { DIR } from '../../src/read-models/directory';

export interface CarrierRow {
  id: string;
  name: string;
  naic_codes: string[];
  group_id: string | null;
  merged_into: string | null;
  [k: string]: unknown;
}

const MAX_MERGE_HOPS = 16;

/** A carrier id, following merges to the surviving carrier ("a merged carrier resolves to its surviving ID"). */
export async function resolveCarrier(knex: Knex, id: string): Promise<CarrierRow | null> {
  let current = id;
  for (let hop = 0; hop < MAX_MERGE_HOPS; hop++) {
    const row = (await knex(DIR.carriers).where({ id: current }).first()) as CarrierRow | undefined;
    if (!row) return null;
    if (!row.merged_into) return row;
    current = row.merged_into;
  }
  return null;
}

/**
 * The NAIC company codes a catalog carrier filter matches: the CURRENT codes of the (surviving)
 * carrier. A carrier the directory does not know, or one without any NAIC code, matches no catalog
 * identifier: 404 not_found, as the spec says, rather than an empty list that reads as "no filings".
 */
export async function carrierFilterCodes(knex: Knex, ids: string[], param: string): Promise<string[]> {
  const codes = new Set<string>();
  for (const id of ids) {
    const c = await resolveCarrier(knex, id);
    if (!c || c.naic_codes.length === 0) throw notFound(`${param}: carrier ${id} matches no catalog identifier.`);
    c.naic_codes.forEach((x) => codes.add(x));
  }
  return [...codes];
}

/**
 * A catalog group filter: filings recorded under the group's NAIC group code, or under the current
 * NAIC company code of any (surviving) carrier of the group.
 */
export async function groupFilterCodes(knex: Knex, ids: string[], param = 'group'): Promise<{ groupCodes: string[]; companyCodes: string[] }> {
  const groupCodes = new Set<string>();
  const companyCodes = new Set<string>();
  for (const id of ids) {
    const g = (await knex(DIR.groups).where({ id }).first()) as { naic_codes: string[] } | undefined;
    if (!g) throw notFound(`${param}: carrier group ${id} matches no catalog identifier.`);
    const members = (await knex(DIR.carriers).where({ group_id: id }).whereNull('merged_into').select('naic_codes')) as { naic_codes: string[] }[];
    if (g.naic_codes.length === 0 && !members.some((m) => m.naic_codes.length)) throw notFound(`${param}: carrier group ${id} matches no catalog identifier.`);
    g.naic_codes.forEach((c) => groupCodes.add(c));
    members.forEach((m) => m.naic_codes.forEach((c) => companyCodes.add(c)));
  }
  return { groupCodes: [...groupCodes], companyCodes: [...companyCodes] };
}

/** Digits only: a NAIC code, never a directory id (those are `carrier_...`, `carrier_group_...`). */
const DIGITS = /^\d+$/;

/** Products' `group`: a directory group id, or a NAIC group code (leading zeros normalized, however many). */
export async function groupIdsFor(knex: Knex, values: string[]): Promise<string[]> {
  const ids = new Set<string>();
  const codes = values.filter((v) => DIGITS.test(v)).map(normalizeNaicGroupCode);
  values.filter((v) => !DIGITS.test(v)).forEach((v) => ids.add(v));
  if (codes.length) {
    const rows = (await knex(DIR.groups).whereRaw('naic_codes && ?::text[]', [codes]).select('id')) as { id: string }[];
    rows.forEach((r) => ids.add(r.id));
  }
  return [...ids];
}

/**
 * Products' `carrier`: a writing-company NAIC code (normalized to five digits: `123` and `000123` are
 * `00123`) or a carrier id (merges followed both ways).
 */
export async function carrierIdsFor(knex: Knex, values: string[]): Promise<string[]> {
  const ids = new Set<string>();
  const codes = values.filter((v) => DIGITS.test(v)).map((v) => v.replace(/^0+(?=\d{5})/, '').padStart(5, '0'));
  for (const v of values.filter((x) => !DIGITS.test(x))) {
    ids.add(v);
    const survivor = await resolveCarrier(knex, v);
    if (survivor) ids.add(survivor.id);
  }
  if (codes.length) {
    const rows = (await knex(DIR.carriers).whereRaw('naic_codes && ?::text[]', [codes]).select('id')) as { id: string }[];
    rows.forEach((r) => ids.add(r.id));
  }
  if (ids.size) {
    // Availability rows may still name a carrier that was merged away: it writes for the survivor now.
    const merged = (await knex(DIR.carriers).whereIn('merged_into', [...ids]).select('id')) as { id: string }[];
    merged.forEach((r) => ids.add(r.id));
  }
  return [...ids];
}
