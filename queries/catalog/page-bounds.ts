import { ident } from '../../infra/postgres/sql-ident';
import { isIsoDateFast as isIsoDate } from '../../commands/catalog/catalog-filing-fast-check';
import { dateLiteral } from './catalog-filters';
import { recordFieldOf } from './catalog-record';
import type { SortKey } from './keyset';

/**
 * A value of the page's first sort key (a date, YYYY-MM-DD) that a first page is known to reach: the
 * rows up to it, in the page's order, were at least a page and one more row when last read.
 */
export type PageBound = string;

/** Sort columns a bound is kept for: dates, written into the SQL as literals (dateLiteral). */
const DATE_COLUMNS = new Set(['submission_date', 'disposition_date', 'state_status_changed_date']);

/** Bounds kept: a bound per first page of a `...Contains` term that matched a few names. */
const BOUNDS_KEPT = 1_000;

/**
 * `key <= bound` in the key's order: nulls sort last in both directions, so the rows it keeps are a
 * prefix of the order.
 */
export function boundPredicate(key: SortKey, bound: PageBound): string {
  if (!DATE_COLUMNS.has(key.column)) throw new Error(`no page bound on ${key.column}`);
  return `${ident(key.column)} ${key.desc ? '>=' : '<='} ${dateLiteral(bound)}`;
}

/** The date field of a stored list record; the record is read whole only when the field is not where JSON.stringify writes it. */
export function recordDate(listRecord: string, column: string): string | null {
  const field = recordFieldOf(column);
  // A quote inside a string value is always escaped, so `,"field":` only matches the field itself.
  const at = listRecord.indexOf(`,"${field}":`);
  if (at >= 0) {
    const start = at + field.length + 4;
    if (listRecord.startsWith('null', start)) return null;
    const value = listRecord.slice(start + 1, start + 11);
    if (listRecord[start] === '"' && listRecord[start + 11] === '"' && isIsoDate(value)) return value;
  }
  return (JSON.parse(listRecord) as Record<string, string | null>)[field] ?? null;
}

/**
 * First pages of a union of per-name ranges (a `...Contains` term that matched a few names, see
 * catalog-list-query.ts), read through a bound instead. Each name's range costs Postgres an index
 * descent and the set-up of its own scan, so ten names cost about twice a one-name page. Once a page
 * has been read, the first key's value of the row after it bounds the page: `name in (...)` and
 * `key >= bound` (descending) is one scan of the name index over a few rows per name, sorted. Exact
 * without any invalidation: the rows up to the bound are a prefix of the order (nulls sort last), so
 * when that statement returns the page and one more row, they are the page's first rows; when it
 * returns fewer (filings changed or went away), the union is read, and the bound learned again. Each
 * bounded read also learns the bound anew, so it follows newer filings instead of growing.
 */
export class PageBounds {
  private readonly known = new Map<string, PageBound>();

  /** Whether a page in this order can be bounded. */
  static applies(keys: readonly SortKey[]): boolean {
    return DATE_COLUMNS.has(keys[0].column);
  }

  /** The key of a statement: its text and values. */
  static keyOf(statement: { sql: string; bindings: unknown[] }): string {
    return `${statement.sql}\u0000${JSON.stringify(statement.bindings)}`;
  }

  get(key: string): PageBound | undefined {
    return this.known.get(key);
  }

  /**
   * Learns the bound of a page from the record of the row after it (null: the page was the last one),
   * the first key's value there; a null value bounds nothing.
   */
  learn(key: string, after: string | null, first: SortKey): void {
    const bound = after === null ? null : recordDate(after, first.column);
    if (bound === null) {
      this.known.delete(key);
      return;
    }
    if (this.known.get(key) === bound) return;
    // Forgetting all at once is fine: a forgotten page is read as a union once more.
    if (this.known.size >= BOUNDS_KEPT) this.known.clear();
    this.known.set(key, bound);
  }
}
