import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { catalogFilingRecord } from '../../commands/catalog/catalog-filing-schema';
import type { CatalogFile, CatalogFilingEvent } from '../../src/domain/events/catalog';
import { parseRecord } from '../../commands/import/record-schema';
import { demoRecords } from '../../infra/demo/generate';
import { batchedAppender, benchReadKey } from './catalog-data';
import { SEARCH_PROJECTION } from '../../src/read-models/search';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import type { FileIngest, ImportFile } from '../../src/ports/file-ingest';
import { openRuntime, type Runtime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';

/** Filings per append statement. */
const APPEND_BATCH = 250;
/** One document in this many is a long one (a rate manual, a rule book). */
const LONG_ONE_IN = 20;
const LONG_MIN_BYTES = 96 * 1024;
const LONG_MAX_BYTES = 640 * 1024;

export interface TextFile {
  fileId: string;
  byteLength: number;
}

export interface FileTextBenchData {
  dataDir: string;
  apiKey: string;
  files: TextFile[];
}

interface Marker {
  filings: number;
  apiKey: string;
  files: TextFile[];
  loadedAt: string;
  seconds: number;
}

/** Deterministic per file: whether it is long, and how long (between the bounds, skewed toward short). */
function longTarget(fileId: string): number | null {
  const h = crypto.createHash('sha256').update(fileId).digest();
  if (h[0] % LONG_ONE_IN !== 0) return null;
  const u = h.readUInt16BE(1) / 0xffff;
  return Math.round(LONG_MIN_BYTES * (LONG_MAX_BYTES / LONG_MIN_BYTES) ** u);
}

/**
 * A long document: the filing's own pages in turn, each under a running page header, until the target
 * size (the demo generator writes 1 to 8 pages of about 2 KB; real rate manuals run to hundreds).
 */
function lengthen(pages: string[], pool: string[], target: number): string[] {
  const out = [...pages];
  let bytes = Buffer.byteLength(out.join('\f'));
  for (let i = 0; bytes < target; i++) {
    const page = `Page ${out.length + 1}\n${pool[i % pool.length]}`;
    out.push(page);
    bytes += Buffer.byteLength(page) + 1;
  }
  return out;
}

/**
 * A reusable data directory (embedded Postgres) with `n` demo catalog filings whose documents carry
 * extracted text (the demo generator's rate, rule and form prose), one in LONG_ONE_IN lengthened to
 * 96-640 KB, so some texts sit in Postgres (up to 256 KiB) and some in the filesystem store, as an
 * import leaves them. Files go through the real FileIngest (blobs and text revisions as the importer
 * writes them), filings are appended in bulk as CatalogFilingImported events and the projections
 * (except search, not on the text path) catch up. A marker records the finished load and the text files.
 */
export async function fileTextBenchData(dataDir: string, n: number, log: (m: string) => void): Promise<FileTextBenchData> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dataDir, 0o755); // the embedded Postgres may run as another user and must reach its data directory
  const markerFile = path.join(dataDir, `file-text-bench-${n}.json`);
  const started = Date.now();
  const rt = await openRuntime(loadConfig({}, { dataDir }), createLogger('warn'), { poolMax: 4 });
  try {
    let marker: Marker | null = fs.existsSync(markerFile) ? (JSON.parse(fs.readFileSync(markerFile, 'utf8')) as Marker) : null;
    if (!marker) {
      const apiKey = await benchReadKey(rt, 'File text bench');
      const files = await appendFilings(rt, n, log);
      marker = { filings: n, apiKey, files, loadedAt: new Date().toISOString(), seconds: 0 };
    }
    const wanted = rt.engine.projectors.map((p) => p.name).filter((name) => name !== SEARCH_PROJECTION);
    log(`catching up projections ${wanted.join(', ')}`);
    await rt.engine.catchUp(wanted);
    await rt.db.knex.raw('analyze');
    if (!marker.seconds) {
      marker.seconds = Math.round((Date.now() - started) / 1000);
      fs.writeFileSync(markerFile, JSON.stringify(marker));
      log(`loaded ${n} filings (${marker.files.length} text files) in ${marker.seconds} s`);
    }
    return { dataDir, apiKey: marker.apiKey, files: marker.files };
  } finally {
    await rt.close();
  }
}

async function appendFilings(rt: Runtime, n: number, log: (m: string) => void): Promise<TextFile[]> {
  const ingest = rt.container.get<FileIngest>(TOKENS.FileIngest);
  const textFiles: TextFile[] = [];
  const appender = batchedAppender(rt, APPEND_BATCH, 1000, log);
  for (const record of demoRecords({ filings: n, pdf: false })) {
    if ((record as { type: string }).type !== 'catalog_filing') continue;
    const { type: _type, files, ...filing } = parseRecord(catalogFilingRecord, record as Record<string, unknown>);
    const pool = files.flatMap((f) => f.text?.pages ?? []);
    const withText: ImportFile[] = files.map((f) => {
      const target = f.text ? longTarget(f.fileId) : null;
      return target && f.text ? { ...f, text: { pages: lengthen(f.text.pages, pool, target) } } : f;
    });
    const prepared: CatalogFile[] = await Promise.all(withText.map((f) => ingest.prepare(f, process.cwd())));
    for (const f of prepared) if (f.text) textFiles.push({ fileId: f.fileId, byteLength: f.text.byteLength });
    const event: CatalogFilingEvent = { type: 'CatalogFilingImported', data: { filing, files: prepared } };
    await appender.push({ streamId: `catalogFiling-${filing.id}`, expected: 0, events: [{ event, metadata: { actor: 'bench' } }] });
  }
  await appender.flush();
  return textFiles;
}
