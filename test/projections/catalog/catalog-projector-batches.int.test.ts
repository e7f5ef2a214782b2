import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { CatalogFile, CatalogFilingFields } from '../../../src/domain/events/catalog';
import { CatalogProjector } from '../../../projections/catalog/catalog-projector';
import { FilesProjector } from '../../../projections/files/files-projector';
import { aFiling } from '../../support/catalog-filing-mother';
import { ProjectorBench, inStreams } from '../../support/projector-batches';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../src/config';
import { createLogger } from '../../../src/util/logger';
import { openRuntime } from '../../../src/runtime';
import { CATALOG_FILINGS } from '../../../src/read-models/catalog';
import { freshDatabaseUrl } from '../../support/postgres';

function aFile(o: Partial<CatalogFile> = {}): CatalogFile {
  const sha = crypto.randomBytes(32).toString('hex');
  return { fileId: crypto.randomUUID(), name: 'memo.pdf', role: 'form', versionId: null, mimeType: 'application/pdf', restricted: false, contentSha256: sha, size: 10, pageCount: 1, text: null, ...o };
}

const imported = (filing: CatalogFilingFields, files: CatalogFile[]) => ({ stream: `catalogFiling-${filing.id}`, type: 'CatalogFilingImported', data: { filing, files } });
const updated = (filing: CatalogFilingFields, files: CatalogFile[]) => ({ stream: `catalogFiling-${filing.id}`, type: 'CatalogFilingUpdated', data: { filing, files } });

describe('catalog and files projectors: batches', function () {
  this.timeout(120_000);
  let bench: ProjectorBench;
  before(async () => (bench = await ProjectorBench.open()));
  after(async () => bench.close());

  it('rule: a batch that updates one filing several times ends on its last event, as one-by-one application does', async () => {
    const a = aFiling({ companyName: 'First' });
    const b = aFiling();
    const events = inStreams([
      imported(a, []),
      imported(b, []),
      updated({ ...a, companyName: 'Second', submissionDate: null }, []),
      updated({ ...a, companyName: 'Third', naicCompanyCodes: ['1', '2'] }, []),
    ]);
    const p = new CatalogProjector();
    const rows = (await bench.assertBatchEquivalence(p, events)).catalog_filings.map((j) => JSON.parse(j) as Record<string, unknown>);
    const row = rows.find((r) => r.id === a.id)!;
    assert.equal(row.company_name, 'Third');
    assert.equal(row.version, 3);
    assert.deepEqual(row.naic_company_codes, ['1', '2']);
    assert.equal(rows.length, 2);
  });

  it('rule: the names tables hold every company and product name seen once, also names a later event replaced', async () => {
    const a = aFiling({ companyName: 'Acme Mutual', productName: 'Home' });
    const b = aFiling({ companyName: 'Acme Mutual', productName: 'Auto 100%' });
    const c = aFiling({ companyName: 'Zenith_Re', productName: 'Home' });
    const events = inStreams([
      imported(a, []),
      imported(b, []),
      updated({ ...a, companyName: 'Acme Mutual Group' }, []),
      imported(c, []),
      updated({ ...c, productName: 'Home Plus' }, []),
    ]);
    const dump = await bench.assertBatchEquivalence(new CatalogProjector(), events);
    const names = (rows: string[]) => rows.map((j) => (JSON.parse(j) as { name: string }).name).sort();
    assert.deepEqual(names(dump.catalog_company_names), ['Acme Mutual', 'Acme Mutual Group', 'Zenith_Re']);
    assert.deepEqual(names(dump.catalog_product_names), ['Auto 100%', 'Home', 'Home Plus']);
  });

  it('rule: the files read model keeps the last file list of each filing; a file dropped in the same batch is gone', async () => {
    const a = aFiling();
    const kept = aFile({ name: 'kept.pdf' });
    const dropped = aFile({ name: 'dropped.pdf' });
    const events = inStreams([
      imported(a, [kept, dropped]),
      updated(a, [{ ...kept, name: 'renamed.pdf', contentSha256: crypto.randomBytes(32).toString('hex') }]),
    ]);
    const dump = await bench.assertBatchEquivalence(new FilesProjector(), events);
    const entries = dump.files_entries.map((j) => JSON.parse(j) as Record<string, unknown>);
    assert.deepEqual(entries.map((e) => e.name), ['renamed.pdf']);
    // Every content version ever seen stays downloadable.
    assert.equal(dump.files_versions.length, 3);
    assert.equal(JSON.parse(dump.files_filings[0]).file_count, 1);
  });

  it('rule: a file that moves between filings within one batch belongs to the filing whose event came last', async () => {
    const a = aFiling();
    const b = aFiling();
    const shared = aFile();
    const other = aFile();
    const events = inStreams([
      imported(a, [shared]),
      imported(b, [shared, other]),
      updated(a, [aFile()]),
      updated(b, [other]),
      updated(a, [shared]),
      imported(aFiling(), [aFile(), aFile({ text: { textRevision: 'r', textSha256: 'a'.repeat(64), byteLength: 3, pageStarts: [0, 2], method: 'provided' } })]),
    ]);
    const dump = await bench.assertBatchEquivalence(new FilesProjector(), events);
    const entries = dump.files_entries.map((j) => JSON.parse(j) as Record<string, unknown>);
    assert.equal(entries.find((e) => e.file_id === shared.fileId)!.filing_id, a.id);
    assert.equal(entries.find((e) => e.file_id === other.fileId)!.filing_id, b.id);
  });

  it('rule: a rebuild (everything in large batches) equals incremental application over many filings', async () => {
    const filings = Array.from({ length: 40 }, (_, i) => aFiling({ state: i % 2 ? 'TX' : 'FL' }));
    const files = filings.map(() => [aFile(), aFile()]);
    const events = inStreams([
      ...filings.map((f, i) => imported(f, files[i])),
      ...filings.filter((_, i) => i % 3 === 0).map((f) => updated({ ...f, description: 'changed' }, files[filings.indexOf(f)].slice(1))),
    ]);
    await bench.assertBatchEquivalence(new CatalogProjector(), events);
    await bench.assertBatchEquivalence(new FilesProjector(), events);
  });

  it('rule: a rebuild builds the catalog indexes after loading, ending with the same indexes and rows as the live read model', async () => {
    const rt = await openRuntime(
      loadConfig({}, { databaseUrl: await freshDatabaseUrl(), dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-test-')) }),
      createLogger('warn'),
    );
    try {
      for (const f of [aFiling(), aFiling({ state: 'TX' })]) await rt.store.append(`catalogFiling-${f.id}`, [{ type: 'CatalogFilingImported', data: { filing: f, files: [] } }], 0, {});
      await rt.engine.catchUp(['catalog']);
      const indexes = async () =>
        (
          await rt.db.knex.raw(`select regexp_replace(indexdef, 'INDEX \\S+ ON \\S+', 'INDEX ON') as d from pg_indexes where tablename = ? order by 1`, [CATALOG_FILINGS])
        ).rows.map((r: { d: string }) => r.d);
      const rows = async () => (await rt.db.knex.raw(`select to_jsonb(c)::text as j from ${CATALOG_FILINGS} c order by id`)).rows;
      const [liveIndexes, liveRows] = [await indexes(), await rows()];
      assert.ok(liveIndexes.length > 10);
      await rt.engine.rebuild(['catalog']);
      assert.deepEqual(await indexes(), liveIndexes);
      assert.deepEqual(await rows(), liveRows);
    } finally {
      await rt.close();
    }
  });
});
