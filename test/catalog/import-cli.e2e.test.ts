import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freshDatabaseUrl } from '../support/postgres';
import { carrier, carrierGroup, catalogFiling, file, mga, product, serffFiling, writeJsonl } from '../support/catalog-records';

const run = promisify(execFile);
const BIN = path.resolve(__dirname, '../../bin/ifrs.js');

describe('ifrs import (the real CLI)', function () {
  this.timeout(120_000);
  let url: string;
  let dataDir: string;
  let db: pg.Client;
  const ifrs = async (...args: string[]) => {
    const r = await run('node', [BIN, ...args, '--data-dir', dataDir], { env: { ...process.env, DATABASE_URL: url, LOG_LEVEL: 'warn' } });
    return JSON.parse(r.stdout) as Record<string, any>;
  };
  const count = async (sql: string) => Number((await db.query(sql)).rows[0].n);

  before(async () => {
    url = await freshDatabaseUrl();
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-'));
    db = new pg.Client({ connectionString: url });
    await db.connect();
  });
  after(async () => {
    await db.end();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rule: bad lines are reported {line, message} and skipped, the rest imported; --wait returns with the read models caught up; a re-import appends nothing', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-records-'));
    fs.writeFileSync(path.join(dir, 'notice.txt'), 'plain text original');
    const good = catalogFiling({ files: [file(), file({ name: 'notice.txt', mimeType: 'text/plain', content: { path: 'notice.txt' }, text: null })] });
    const records: unknown[] = [
      carrierGroup(),
      carrier(),
      mga(),
      product({ id: 'product_x' }),
      good,
      serffFiling(),
      '{"type": "catalog_filing", "id": ', // line 7: not JSON
      { type: 'spaceship', id: 'x' }, // line 8: unknown type
      catalogFiling({ state: 'Texas' }), // 9
      catalogFiling({ naicCompanyCodes: ['1234'] }), // 10
      catalogFiling({ submissionDate: '2025-13-01' }), // 11
      catalogFiling({ normalizedOutcome: 'OK' }), // 12
      catalogFiling({ source: 'naic' }), // 13
      catalogFiling({ toiCode: '4.0' }), // 14
      catalogFiling({ filingTypeNormalized: 'rate' }), // 15
      '', // blank lines are not records
      carrier({ id: 'carrier_bad', identifiers: [{ scheme: 'naic_company', value: 'ABCDE' }] }), // 17
    ];
    const f = writeJsonl(records, dir);
    const out = await ifrs('import', f, '--wait');
    assert.deepEqual(Object.keys(out), ['imported', 'failed', 'errors']);
    assert.equal(out.imported, 6);
    assert.equal(out.failed, 10);
    assert.deepEqual(out.errors.map((e: any) => e.line), [7, 8, 9, 10, 11, 12, 13, 14, 15, 17]);
    assert.match(out.errors[1].message, /unknown record type "spaceship"/);
    assert.match(out.errors[2].message, /^state: /);
    assert.match(out.errors[3].message, /^naicCompanyCodes\.0: /);
    assert.match(out.errors[4].message, /^submissionDate: /);
    assert.match(out.errors[5].message, /^normalizedOutcome: /);
    // --wait: the read models already hold everything when the command returns.
    assert.equal(await count('select count(*) as n from catalog_filings'), 2);
    assert.equal(await count('select count(*) as n from dir_products'), 1);
    const events = await count('select count(*) as n from es_events');

    const again = await ifrs('import', f, '--wait');
    assert.equal(again.imported, 6);
    assert.equal(await count('select count(*) as n from es_events'), events, 'an unchanged re-import appends nothing');

    const changed = writeJsonl([{ ...good, sourceStatus: 'WITHDRAWN', normalizedOutcome: 'WITHDRAWN' }], fs.mkdtempSync(path.join(dir, 'changed-')));
    fs.copyFileSync(path.join(dir, 'notice.txt'), path.join(path.dirname(changed), 'notice.txt'));
    assert.deepEqual(await ifrs('import', changed, '--wait'), { imported: 1, failed: 0, errors: [] });
    const stream = await ifrs('events', 'read', '--stream', `catalogFiling-${good.id}`);
    assert.deepEqual(stream.events.map((e: any) => e.type), ['CatalogFilingImported', 'CatalogFilingUpdated']);
    assert.equal(stream.events[1].data.filing.sourceStatus, 'WITHDRAWN');
    const plain = stream.events[0].data.files.find((x: any) => x.name === 'notice.txt');
    assert.equal(plain.text.method, 'plain_text');
    assert.equal((await db.query('select source_status from catalog_filings where id = $1', [good.id])).rows[0].source_status, 'WITHDRAWN');
  });

  it('rule: a bad line is reported and skipped, the rest imported: text Postgres cannot store (NUL, an unpaired surrogate) is a bad line, not a failed import', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-records-'));
    const good = catalogFiling();
    // Page texts are stored as blobs, not in the event: a NUL there is kept as before.
    const nulInPages = catalogFiling({ files: [file({ text: { pages: ['before \u0000 after'] } })] });
    const records: unknown[] = [
      catalogFiling({ companyName: 'Acme \u0000 Mutual' }), // 1
      good,
      catalogFiling({ productName: 'Lone \ud800 surrogate' }), // 3
      catalogFiling({ files: [file({ name: 'form\u0000.pdf' })] }), // 4
      catalogFiling({ description: 'tail \udc00' }), // 5
      nulInPages,
    ];
    const out = await ifrs('import', writeJsonl(records, dir), '--wait');
    assert.equal(out.imported, 2, JSON.stringify(out));
    assert.deepEqual(out.errors.map((e: any) => e.line), [1, 3, 4, 5]);
    assert.match(out.errors[0].message, /^companyName: /);
    assert.match(out.errors[1].message, /^productName: /);
    assert.match(out.errors[2].message, /^files\.0\.name: /);
    assert.match(out.errors[3].message, /^description: /);
    assert.equal(await count(`select count(*) as n from catalog_filings where id in ('${good.id}', '${nulInPages.id}')`), 2);
  });

  it('rule: a bad line is reported and skipped, the rest imported: NUL or an unpaired surrogate in a directory, scope or working-filing record is a bad line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-records-'));
    const scope = `mc:${crypto.randomUUID()}`;
    const records: unknown[] = [
      { type: 'carrier_group', id: 'carrier_group_nul1', name: 'Nul \u0000 Group', identifiers: [] }, // 1
      { type: 'carrier', id: 'carrier_nul2', name: 'Fine Carrier', aliases: ['lone \ud800'] }, // 2
      { type: 'carrier', id: 'carrier_nul3', name: 'Kept Carrier' },
      { type: 'scope_company', scope, id: crypto.randomUUID(), name: 'Co \u0000', naicCompanyCode: null }, // 4
    ];
    const out = await ifrs('import', writeJsonl(records, dir), '--wait');
    assert.equal(out.imported, 1, JSON.stringify(out));
    assert.deepEqual(out.errors.map((e: any) => e.line), [1, 2, 4]);
    assert.match(out.errors[0].message, /name: text may not contain NUL/);
    assert.match(out.errors[1].message, /aliases\.0: text may not contain NUL/);
    assert.match(out.errors[2].message, /name: text may not contain NUL/);
  });

  it('rule: a bad line is reported and skipped, the rest imported: a file content path that cannot be read (a directory) is a bad line', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-records-'));
    fs.mkdirSync(path.join(dir, 'originals'));
    const good = catalogFiling();
    const records: unknown[] = [catalogFiling({ files: [file({ content: { path: 'originals' }, text: null })] }), good];
    const out = await ifrs('import', writeJsonl(records, dir), '--wait');
    assert.deepEqual(out.errors.map((e: any) => e.line), [1], JSON.stringify(out));
    assert.match(out.errors[0].message, /originals/);
    assert.equal(out.imported, 1);
    assert.equal(await count(`select count(*) as n from catalog_filings where id = '${good.id}'`), 1);
  });
});
