import type { Knex } from 'knex';
import { carrierFilterCodes, groupFilterCodes } from '../directory/directory-resolution';
import type { RawFilter } from './search-filters';

/**
 * Search's carrier and group filters read like the list's (the spec maps `carrierIds` to `carrier` and
 * `groupId` to `group`): an id that matches no catalog identifier is 404 not_found, not an empty result, and a
 * carrier matches through its CURRENT NAIC company codes (a merged carrier through its survivor's), as the
 * list's `carrier` and `excludeCarrier` do. Validated filters in, the filters the index runs out.
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
    } else {
      // A group keeps its own match (the filing's groupId), once the directory knows it (404 otherwise).
      if (f.field === 'groupId') await groupFilterCodes(knex, Array.isArray(f.value) ? (f.value as string[]) : [f.value as string], where);
      out.push(f);
    }
  }
  return out;
}
