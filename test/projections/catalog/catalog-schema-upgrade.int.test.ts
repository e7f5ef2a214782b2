import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/util/logger';
import { openRuntime, type Runtime } from '../../../src/runtime';
import { catalogFiling, importRecords } from '../../support/catalog-records';
import { freshDatabaseUrl } from '../../support/postgres';

/**
 * A fresh database and data directory for a describe block, and `open` to start the service's runtime on them
 * (again: each start runs the schema upgrades); the last runtime opened is `rt`, closed after the block.
 */
function runtimeOnFreshDatabase(): { open: () => Promise<Runtime>; readonly rt: Runtime | null } {
  let dataDir: string;
  let databaseUrl: string;
  let rt: Runtime | null = null;
  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-upgrade-'));
    databaseUrl = await freshDatabaseUrl();
  });
  after(async () => {
    await rt?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  return {
    open: async () => (rt = await openRuntime(loadConfig({}, { dataDir, databaseUrl, logLevel: 'warn' }), createLogger('silent'))),
    get rt() {
      return rt;
    },
  };
}

/** Whether a column is declared NOT NULL. */
async function notNull(knex: Knex, table: string, column: string): Promise<boolean> {
  const r = await knex.raw(`select attnotnull from pg_attribute where attrelid = to_regclass(?) and attname = ?`, [table, column]);
  return r.rows[0].attnotnull as boolean;
}

/** What a rebuild would change: the tables' oids (a rebuild swaps in new tables) and the checkpoints. */
async function identity(knex: Knex): Promise<unknown> {
  const tables = await knex.raw(`select relname, oid::int from pg_class where relname in ('catalog_filings', 'search_filings') order by relname`);
  const checkpoints = await knex.raw(`select name, commit_position::text, prepare_position::text, version from projection_checkpoints where name in ('catalog', 'search_index') order by name`);
  return { tables: tables.rows, checkpoints: checkpoints.rows };
}

/**
 * A catalog that a release before nullable company names built (catalog_filings.company_name and
 * search_filings.company_name NOT NULL) is brought up to date when the service starts, without rebuilding the
 * read models from the log (every filing projected again, and every page text indexed again): the column loses NOT
 * NULL in place, which Postgres does without rewriting the table or its indexes.
 */
describe('catalog read models: nullable company name without a rebuild', function () {
  this.timeout(120_000);
  const runtimes = runtimeOnFreshDatabase();
  const open = runtimes.open;

  it('rule: a company_name column made NOT NULL by an earlier release becomes nullable at start, the existing rows and checkpoints kept; then a filing without a company name projects', async () => {
    const named = catalogFiling({ companyName: 'Acme Insurance Company' });
    let knex = (await open()).db.knex;
    assert.equal((await importRecords(runtimes.rt!, [named])).failed, 0);
    // The schema as the earlier release created it.
    await knex.raw(`alter table catalog_filings alter column company_name set not null; alter table search_filings alter column company_name set not null`);
    const before = await identity(knex);
    await runtimes.rt!.close();

    knex = (await open()).db.knex;
    assert.equal(await notNull(knex, 'catalog_filings', 'company_name'), false);
    assert.equal(await notNull(knex, 'search_filings', 'company_name'), false);
    assert.deepEqual(await identity(knex), before, 'no rebuild: same tables, same checkpoints');

    const nameless = catalogFiling({ companyName: null });
    const r = await importRecords(runtimes.rt!, [nameless]);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
    const rows = await knex.raw(`select id::text, company_name, list_record::json->>'companyName' as served from catalog_filings order by company_name nulls last`);
    assert.deepEqual(rows.rows, [
      { id: named.id, company_name: 'Acme Insurance Company', served: 'Acme Insurance Company' },
      { id: nameless.id, company_name: null, served: null },
    ]);
    const indexed = await knex.raw(`select company_name, record->>'companyName' as served from search_filings where filing_id = ?`, [nameless.id as string]);
    assert.deepEqual(indexed.rows, [{ company_name: null, served: null }]);
  });

  it('rule: the upgrade is idempotent: starting again changes nothing', async () => {
    const knex = runtimes.rt!.db.knex;
    const before = await identity(knex);
    await runtimes.rt!.close();
    await open();
    assert.deepEqual(await identity(runtimes.rt!.db.knex), before);
  });
});

/** The btree definitions of a table's indexes, as pg_get_indexdef writes them after USING. */
async function indexDefinitions(knex: Knex, table: string): Promise<Map<string, number>> {
  const r = await knex.raw(`select indexrelid::int as oid, pg_get_indexdef(indexrelid) as def from pg_index where indrelid = to_regclass(?)`, [table]);
  return new Map((r.rows as { oid: number; def: string }[]).map((x) => [x.def.slice(x.def.indexOf(' USING ') + 7), x.oid]));
}

const STATE_SORT_INDEXES = ['btree (state, id)', 'btree (state DESC NULLS LAST, id)'];

/**
 * The state sort reads `(state, id)` and `(state desc nulls last, id)` (docs/catalog-query-plans.md): a catalog
 * built by a release without them gets them when the service starts, built once on the live table, not by
 * projecting every filing again.
 */
describe('catalog read model: the state sort indexes without a rebuild', function () {
  this.timeout(120_000);
  const runtimes = runtimeOnFreshDatabase();
  const open = runtimes.open;

  it('rule: a new catalog has both state sort indexes', async () => {
    const defs = await indexDefinitions((await open()).db.knex, 'catalog_filings');
    for (const def of STATE_SORT_INDEXES) assert.ok(defs.has(def), `${def} in ${[...defs.keys()].join('; ')}`);
  });

  it('rule: a catalog built without the state sort indexes gets them at start, the tables and checkpoints kept; starting again builds nothing', async () => {
    let knex = runtimes.rt!.db.knex;
    assert.equal((await importRecords(runtimes.rt!, [catalogFiling({ state: 'TX' })])).failed, 0);
    for (const [def, oid] of await indexDefinitions(knex, 'catalog_filings')) {
      if (STATE_SORT_INDEXES.includes(def)) await knex.raw(`drop index ${(await knex.raw('select ?::regclass::text as n', [oid])).rows[0].n}`);
    }
    const before = await identity(knex);
    await runtimes.rt!.close();

    knex = (await open()).db.knex;
    const defs = await indexDefinitions(knex, 'catalog_filings');
    for (const def of STATE_SORT_INDEXES) assert.ok(defs.has(def), `${def} in ${[...defs.keys()].join('; ')}`);
    assert.deepEqual(await identity(knex), before, 'no rebuild: same tables, same checkpoints');
    await runtimes.rt!.close();

    knex = (await open()).db.knex;
    assert.deepEqual(await indexDefinitions(knex, 'catalog_filings'), defs, 'the same indexes, none built again');
  });
});
