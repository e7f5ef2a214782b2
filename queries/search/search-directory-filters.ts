import type { Knex } from 'knex';
import { carrierFilterCodes, groupFilterCodes } from '../directory/directory-resolution';
import { RESOLVED_GROUP, type GroupCodes, type RawFilter } from './search-filters';

/**
 * Search's carrier and group filters read like the list's (the spec maps `carrierIds` to `carrier` and
 * `groupId` to `group`): an id that matches no catalog identifier is 404 not_found, not an empty result, a
 * carrier matches through its CURRENT NAIC company codes (a merged carrier through its survivor's), as the
 * list's `carrier` and `excludeCarrier` do, and a group through its NAIC group code or its unmerged carriers'
 * current company codes, as the list's `group` does (groupFilterCodes is that rule, for both). Validated
 * filters in, the filters the index runs out.
 */
export async function resolveDirectoryFilters(knex: Knex, filters: RawFilter[]): Promise<RawFilter[]> {
  const out: RawFilter[] = [];
  for (const [i, f] of filters.entries()) {
    const where = `filters[${i}].value`;
    if (f.field === 'carrierIds') {
      const codes = await carrierFilterCodes(knex, f.value as string[], where);
      if (f.operator === 'containsAny') out.push({ field: 'naicCompanyCodes', operator: 'containsAny', value: codes });
      // The carrierIds exclusion stays: it also drops filings whose carrier is unknown (DESIGN.md).
      else out.push(f, { field: 'naicCompanyCodes', operator: 'notContainsAny', value: codes });
    } else if (f.field === 'groupId') {
      const g = await groupFilterCodes(knex, Array.isArray(f.value) ? (f.value as string[]) : [f.value as string], where);
      const value: GroupCodes = { naicGroupCodes: g.groupCodes, naicCompanyCodes: g.companyCodes };
      out.push({ field: RESOLVED_GROUP, operator: 'matches', value });
    } else {
      out.push(f);
    }
  }
  return out;
}
