import type { Knex } from 'knex';
import { runStatement } from '../../infra/postgres/prepared';
import { raw, sql } from '../../infra/postgres/sql';
import { ident } from '../../infra/postgres/sql-ident';
import { CATALOG_PROJECTION, CATALOG_COMPANY_NAMES, CATALOG_PRODUCT_NAMES } from '../../src/read-models/catalog';
import type { CatalogListStatement } from './catalog-list-query';
import type { NameColumn, NameMatcher } from './names-containing';

/**
 * The version of the names tables: the transaction that last wrote the catalog projection's checkpoint
 * row (its xmin). Every batch the catalog projector applies (the only writer of the names tables)
 * moves the checkpoint in the same transaction, and a rebuild rewrites it when it swaps the tables in,
 * so two snapshots that see the same row version see the same names. The checkpoint also moves for
 * batches without new names (and for other projectors' events), which only costs a reload. A short
 * value: every row of a page carries it.
 */
/** The catalog checkpoint's row, whose xmin is the names version (it moves whenever the projector writes). */
const CHECKPOINT_ROW = `from "projection_checkpoints" where "name" = '${CATALOG_PROJECTION}'`;
const VERSION_SQL = `(select "xmin"::text ${CHECKPOINT_ROW})`;

/** Which tables hold the names: a rebuild swaps new ones in (whose names a new projector may spell differently). */
const TABLES_SQL = `'${ident(CATALOG_COMPANY_NAMES)}'::regclass::oid::text || '/' || '${ident(CATALOG_PRODUCT_NAMES)}'::regclass::oid::text`;

/** Every name of both tables, their version and tables, in one snapshot (`lower_name` is read only for the tables). */
const LOAD_SQL = `select 'c' as "t", "name", "lower_name" from ${ident(CATALOG_COMPANY_NAMES)}
  union all select 'p', "name", "lower_name" from ${ident(CATALOG_PRODUCT_NAMES)}
  union all select 'v', ${VERSION_SQL}, ${TABLES_SQL}`;

/**
 * The version, the tables and how many names each holds, in one snapshot: names are never removed, so
 * in the same tables equal counts mean the same names.
 */
const COUNT_SQL = `select ${VERSION_SQL} as "version", ${TABLES_SQL} as "tables", (select count(*) from ${ident(CATALOG_COMPANY_NAMES)})::int as "companies", (select count(*) from ${ident(CATALOG_PRODUCT_NAMES)})::int as "products"`;

/**
 * The page's statement, also returning the names version of its own snapshot as one more row: the
 * catalog checkpoint's xmin in the first of the page's `output` columns (the stored record), nulls in
 * the others, appended to the page by UNION ALL. Not a column of every row (a lateral join of the page
 * to the version cost ~20 us of Postgres per page, and node parsed the version 51 times). A stored
 * record is a JSON object and the version is digits, so splitNamesVersion tells the row apart wherever
 * the Append puts it; the page's rows keep their order (one child of the Append). No row at all when
 * the catalog projection has no checkpoint yet: the version is then null, as the copy's.
 */
export function withNamesVersion(statement: CatalogListStatement, output: readonly string[]): CatalogListStatement {
  let version = `select "xmin"::text as ${ident(output[0])}`;
  for (const c of output.slice(1)) version += `, null::text as ${ident(c)}`;
  return sql`${raw(`${version} ${CHECKPOINT_ROW} union all (`)}${statement})`;
}

/** The page's rows and the names version withNamesVersion added to them (null: none). */
export function splitNamesVersion<R extends { list_record: string }>(rows: R[]): { rows: R[]; namesVersion: string | null } {
  const at = rows.findIndex((r) => !r.list_record.startsWith('{'));
  if (at < 0) return { rows, namesVersion: null };
  return { rows: at === 0 ? rows.slice(1) : [...rows.slice(0, at), ...rows.slice(at + 1)], namesVersion: rows[at].list_record };
}

/** The names as one load saw them. */
export class NameLists implements NameMatcher {
  /** Matches per column and term: the same few terms repeat, and scanning every name is per-request CPU. */
  private readonly memo = new Map<string, string[] | null>();

  constructor(
    /** Null when the catalog projection has no checkpoint yet. */
    readonly version: string | null,
    readonly lists: Record<NameColumn, { names: string[]; lower: string[] }>,
    /** The names tables' oids. */
    readonly tables: string | null = null,
  ) {}

  /** The same names under a later version (the memo stays valid). */
  withVersion(version: string | null): NameLists {
    const next = new NameLists(version, this.lists, this.tables);
    for (const [k, v] of this.memo) next.memo.set(k, v);
    return next;
  }

  matching(column: NameColumn, term: string, max: number): string[] | null {
    const key = `${column}\u0000${max}\u0000${term}`;
    const known = this.memo.get(key);
    if (known !== undefined) return known;
    // Both lower-cased by JavaScript (Unicode, load): a case-insensitive substring, with %, _ and \ literal.
    const needle = term.toLowerCase();
    const { names, lower } = this.lists[column];
    let found: string[] | null = [];
    for (let i = 0; i < names.length; i++) {
      if (!lower[i].includes(needle)) continue;
      if (found.length === max) {
        found = null;
        break;
      }
      found.push(names[i]);
    }
    // Bounded: a match can hold up to `max` names.
    if (this.memo.size >= 1_000) this.memo.clear();
    this.memo.set(key, found);
    return found;
  }
}

/**
 * The catalog's distinct company and product names, kept in the API process: a `...Contains` term is
 * matched here (microseconds for thousands of names) instead of by a LIKE over the names tables, which
 * cost ~0.2 ms of Postgres and a round trip per request. Freshness is exact without another round
 * trip: the page's statement returns the names version of its snapshot (withNamesVersion), and the
 * route compares it to the version of the lists it matched against (see ListCatalogFilingsRoute).
 */
export class CatalogNames {
  private lists: NameLists | null = null;
  /** The load in flight and its sequence number: loads are numbered in the order they start. */
  private loading: { seq: number; done: Promise<NameLists> } | null = null;
  private started = 0;
  /** Loads that read every name (the others found the same counts and kept the names). */
  fullLoads = 0;

  constructor(private readonly knex: Knex) {}

  /** The lists, loading them on first use. */
  async current(): Promise<NameLists> {
    if (this.lists) return this.lists;
    return this.loading ? this.loading.done : this.loadAfter(this.started);
  }

  /** A mark to pass to `loadAfter`: loads started from now on have a greater number. */
  mark(): number {
    return this.started;
  }

  /**
   * Lists whose load started after `mark`, so their snapshot is at least as new as any statement that
   * finished before the mark was taken. Concurrent callers share a load.
   */
  async loadAfter(mark: number): Promise<NameLists> {
    while (this.loading && this.loading.seq <= mark) await this.loading.done.catch(() => undefined);
    if (this.loading) return this.loading.done;
    const seq = ++this.started;
    const done = this.load().finally(() => {
      if (this.loading?.seq === seq) this.loading = null;
    });
    this.loading = { seq, done };
    return done;
  }

  /**
   * The checkpoint moves for every catalog batch and for other projectors' events, mostly without new
   * names: then counting the names (one small statement) keeps the copy under the new version instead
   * of reading every name again.
   */
  private async load(): Promise<NameLists> {
    if (this.lists) {
      const [c] = await runStatement<{ version: string | null; tables: string; companies: number; products: number }>(this.knex, { text: COUNT_SQL, values: [] });
      const same = c.tables === this.lists.tables && c.companies === this.lists.lists.company_name.names.length && c.products === this.lists.lists.product_name.names.length;
      if (same) {
        this.lists = this.lists.withVersion(c.version);
        return this.lists;
      }
    }
    this.fullLoads++;
    const rows = await runStatement<{ t: string; name: string; lower_name: string | null }>(this.knex, { text: LOAD_SQL, values: [] });
    const lists = { company_name: { names: [] as string[], lower: [] as string[] }, product_name: { names: [] as string[], lower: [] as string[] } };
    let version: string | null = null;
    let tables: string | null = null;
    for (const r of rows) {
      if (r.t === 'v') {
        version = r.name;
        tables = r.lower_name;
      }
      else {
        const list = r.t === 'c' ? lists.company_name : lists.product_name;
        list.names.push(r.name);
        // Lower-cased here, as the term is (matching), not Postgres's lower_name: under the C locale
        // lower() folds only ASCII, so 'ÉTOILE' stayed 'Étoile' while the term became 'étoile', and the
        // name could not be found by any spelling with that letter.
        list.lower.push(r.name.toLowerCase());
      }
    }
    // Sorted, so equal terms give equal SQL across loads (union all order is no promise).
    for (const list of Object.values(lists)) {
      const order = list.names.map((_, i) => i).sort((a, b) => (list.names[a] < list.names[b] ? -1 : list.names[a] > list.names[b] ? 1 : 0));
      list.names = order.map((i) => list.names[i]);
      list.lower = order.map((i) => list.lower[i]);
    }
    const fresh = new NameLists(version, lists, tables);
    this.lists = fresh;
    return fresh;
  }
}
