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
  it('rule: a file id belongs to one catalog filing: a second filing listing it, in the same file or a later import, is a bad line and the rest imports', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-records-'));
    const shared = file({ text: { pages: ['the first filing owns this text'] } });
    const a = catalogFiling({ files: [shared] });
    const b = catalogFiling({ files: [file(), { ...shared, text: { pages: ['the second filing would have taken it'] } }] });
    const c = catalogFiling({ files: [file()] });
    const out = await ifrs('import', writeJsonl([a, b, c], dir), '--wait');
    assert.deepEqual(out, { imported: 2, failed: 1, errors: [{ line: 2, message: `file ${shared.fileId} already belongs to catalog filing ${a.id}` }] });
    const later = await ifrs('import', writeJsonl([catalogFiling(), b], fs.mkdtempSync(path.join(dir, 'later-'))), '--wait');
    assert.deepEqual(later, { imported: 1, failed: 1, errors: [{ line: 2, message: `file ${shared.fileId} already belongs to catalog filing ${a.id}` }] });
    assert.deepEqual((await db.query('select filing_id from files_entries where file_id = $1', [shared.fileId])).rows, [{ filing_id: a.id }]);
    assert.equal(await count(`select count(*) as n from catalog_filings where id = '${b.id}'`), 0);
  });

  it('rule: a file id belongs to one catalog filing: two import processes racing for the same file ids import exactly one filing per file id, and the files read model agrees', async () => {
    const n = 600;
    const files = Array.from({ length: n }, () => file({ text: { pages: ['shared file text'] } }));
    const xs = files.map((f) => catalogFiling({ files: [f] }));
    const ys = files.map((f) => catalogFiling({ files: [f] }));
    // Opposite orders: while both run, each process reaches the other's first claims last.
    const fx = writeJsonl(xs, fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-race-x-')));
    const fy = writeJsonl(ys.slice().reverse(), fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-race-y-')));
    const [ox, oy] = await Promise.all([ifrs('import', fx, '--wait'), ifrs('import', fy, '--wait')]);
    assert.equal(ox.imported + oy.imported, n, JSON.stringify({ x: [ox.imported, ox.failed], y: [oy.imported, oy.failed] }));
    assert.equal(ox.failed + oy.failed, n);
    for (const e of [...ox.errors, ...oy.errors]) assert.match(e.message, /^file [0-9a-f-]{36} already belongs to catalog filing [0-9a-f-]{36}$/);
    const ids = [...xs, ...ys].map((r) => r.id);
    const imported = new Set((await db.query('select id from catalog_filings where id = any($1::uuid[])', [ids])).rows.map((r) => r.id));
    const owners = new Map((await db.query('select file_id, filing_id from files_entries where file_id = any($1::uuid[])', [files.map((f) => f.fileId)])).rows.map((r) => [r.file_id, r.filing_id]));
    const claims = new Map((await db.query('select file_id, filing_id from catalog_file_claims where file_id = any($1::uuid[])', [files.map((f) => f.fileId)])).rows.map((r) => [r.file_id, r.filing_id]));
    files.forEach((f, i) => {
      const won = [imported.has(xs[i].id), imported.has(ys[i].id)];
      assert.equal(won.filter(Boolean).length, 1, `file ${i}: ${won}`);
      const winner = won[0] ? xs[i].id : ys[i].id;
      assert.equal(owners.get(f.fileId), winner, `file ${i}: the inventory holds it for the filing that was imported`);
      assert.equal(claims.get(f.fileId), winner);
    });
  });
});
