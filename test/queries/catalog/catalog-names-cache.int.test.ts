import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/util/logger';
import { openRuntime, type Runtime } from '../../../src/runtime';
import { CATALOG_COMPANY_NAMES, CATALOG_PRODUCT_NAMES, CATALOG_PROJECTION } from '../../../src/read-models/catalog';
import { CatalogNames } from '../../../queries/catalog/catalog-names-cache';
import { namesContaining } from '../../../queries/catalog/names-containing';
import { freshDatabaseUrl } from '../../support/postgres';

describe('catalog: reloading the API\'s copy of the names', function () {
  this.timeout(60_000);
  let rt: Runtime;
  let dataDir: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-names-'));
    rt = await openRuntime(loadConfig({}, { dataDir, databaseUrl: await freshDatabaseUrl(), logLevel: 'warn' }), createLogger('silent'));
    await rt.db.knex.raw(`insert into ${CATALOG_COMPANY_NAMES} (name) values ('Acme Mutual'), ('Beta Co'); insert into ${CATALOG_PRODUCT_NAMES} (name) values ('Home')`);
  });
  after(async () => {
    await rt.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rule: ...Contains is a case-insensitive literal substring, non-ASCII letters included, in the copy and in the SQL look-up', async () => {
    await rt.db.knex.raw(`insert into ${CATALOG_COMPANY_NAMES} (name) values ('ÉTOILE Générale')`);
    const copy = await new CatalogNames(rt.db.knex).current();
    for (const term of ['ÉTOILE', 'étoile', 'GÉNÉRALE']) assert.deepEqual(copy.matching('company_name', term, 10), ['ÉTOILE Générale'], term);
    // The SQL look-up folds what the database's lower() folds (ASCII only under the C locale), on both sides:
    // the literal spelling always matches.
    for (const term of ['ÉTOILE', 'ÉToile G', 'Générale', 'GéNéRALE']) {
      assert.deepEqual(await namesContaining(rt.db.knex, CATALOG_COMPANY_NAMES, term, 10), ['ÉTOILE Générale'], term);
    }
    await rt.db.knex.raw(`delete from ${CATALOG_COMPANY_NAMES} where name = 'ÉTOILE Générale'`);
  });

  // What a catalog batch does to the version: it moves the checkpoint row in its transaction.
  const moveCheckpoint = () => rt.db.knex.raw(`update projection_checkpoints set updated_at = now() where name = ?`, [CATALOG_PROJECTION]);

  it('a moved checkpoint without new names keeps the names under the new version (counted, not read again); a new name is read', async () => {
    const names = new CatalogNames(rt.db.knex);
    const first = await names.current();
    assert.deepEqual(first.matching('company_name', 'MUTUAL', 256), ['Acme Mutual']);
    assert.equal(names.fullLoads, 1);

    await moveCheckpoint();
    const same = await names.loadAfter(names.mark());
    assert.notEqual(same.version, first.version);
    assert.equal(names.fullLoads, 1);
    assert.deepEqual(same.matching('company_name', 'co', 256), ['Beta Co']);

    await rt.db.knex.raw(`insert into ${CATALOG_COMPANY_NAMES} (name) values ('Gamma Mutual')`);
    await moveCheckpoint();
    const grown = await names.loadAfter(names.mark());
    assert.equal(names.fullLoads, 2);
    assert.deepEqual(grown.matching('company_name', 'mutual', 256), ['Acme Mutual', 'Gamma Mutual']);
    assert.equal(await names.current(), grown);
  });

  it('concurrent callers share one load, and a load started before a mark does not satisfy it', async () => {
    const names = new CatalogNames(rt.db.knex);
    const [a, b] = await Promise.all([names.current(), names.current()]);
    assert.equal(a, b);
    assert.equal(names.fullLoads, 1);
    const mark = names.mark();
    const later = await names.loadAfter(mark);
    assert.ok(names.mark() > mark);
    assert.notEqual(later, a);
  });
});
