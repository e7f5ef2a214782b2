import type { Knex } from 'knex';
import { queryPreparedSql } from '../../infra/postgres/prepared';
import { ident } from '../../infra/postgres/sql-ident';

export type NameColumn = 'company_name' | 'product_name';

/** Matches a `...Contains` term against the catalog's distinct names (see CatalogNames). */
export interface NameMatcher {
  /** The names containing `term` (case-insensitive, literal), in a fixed order; null when more than `max` do. */
  matching(column: NameColumn, term: string, max: number): string[] | null;
}

/** `%` and `_` matched literally by LIKE (with the default escape character, the backslash). */
export function likeLiteral(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/**
 * The LIKE pattern of a `...Contains` term: a literal substring, compared as `lower(x) like lower(pattern)`
 * (case-insensitive). Lower-cased by Postgres, not here: under the C locale its lower() folds only ASCII,
 * and a term lower-cased by JavaScript ('ÉTOILE' to 'étoile') then missed the very name it spells.
 */
export function containsPattern(term: string): string {
  return `%${likeLiteral(term)}%`;
}

/**
 * The names of a names table (catalog projector) that contain `term` as `...Contains` defines it, or null
 * when more than `max` do: then most filings tend to match and walking the list's own index with the
 * substring as a filter is the cheaper plan. Ordered, so equal requests build equal SQL.
 */
export async function namesContaining(knex: Knex, table: string, term: string, max: number): Promise<string[] | null> {
  // The limit is written into the SQL: bound, it kept Postgres from ever using the generic plan (see
  // catalog-list-query.ts), and planning was a third of the look-up's time.
  const sql = `select "name" from ${ident(table)} where "lower_name" like lower($1) order by "name" asc limit ${max + 1}`;
  const rows = await queryPreparedSql<{ name: string }>(knex, sql, [containsPattern(term)]);
  return rows.length > max ? null : rows.map((r) => r.name);
}
