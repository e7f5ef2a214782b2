import { ident } from '../../infra/postgres/sql-ident';
import { dateLiteral } from './catalog-filters';
import { DATE_COLUMNS, recordDate } from './catalog-record';
import type { SortKey } from './keyset';

/**
 * A value of the page's first sort key (a date column, written into the SQL as a literal: dateLiteral)
 * that a first page reached when it was last read.
 */
export type PageBound = string;

/** Bounds kept: a bound per first page of a `...Contains` term that matched a few names. */
const BOUNDS_KEPT = 1_000;
/** Longer keys (hundred-value filters) are not kept, so the map stays small. */
const KEY_LENGTH_KEPT = 2_048;

/**
 * `key <= bound` in the key's order: nulls sort last in both directions, so the rows it keeps are a
 * prefix of the order.
 */
export function boundPredicate(key: SortKey, bound: PageBound): string {
  if (!DATE_COLUMNS.has(key.column)) throw new Error(`no page bound on ${key.column}`);
  return `${ident(key.column)} ${key.desc ? '>=' : '<='} ${dateLiteral(bound)}`;
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
 *
 * Since any bound gives the exact page when the bounded read is long enough, the key only decides which
 * bound is tried: the request (its parameters and whether the caller sees SERFF filings), not the
 * statement, which would have to be built twice and hashed whole on every request.
 */
export class PageBounds {
  private readonly known = new Map<string, PageBound>();

  /** Whether a page in this order can be bounded. */
  static applies(keys: readonly SortKey[]): boolean {
    return DATE_COLUMNS.has(keys[0].column);
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
    if (this.known.get(key) === bound || key.length > KEY_LENGTH_KEPT) return;
    // Forgetting all at once is fine: a forgotten page is read as a union once more.
    if (this.known.size >= BOUNDS_KEPT) this.known.clear();
    this.known.set(key, bound);
  }
}
