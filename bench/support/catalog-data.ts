import fs from 'node:fs';
import path from 'node:path';
import { IdentityCommands } from '../../commands/identity/identity-commands';
import { catalogFilingRecord } from '../../commands/catalog/catalog-filing-schema';
import type { CatalogFile, CatalogFilingEvent } from '../../src/domain/events/catalog';
import { parseRecord } from '../../commands/import/record-schema';
import { appendMany, type StreamAppend } from '../../infra/eventstore/postgres-bulk-append';
import { FILES_PROJECTION } from '../../src/read-models/files';
import { SEARCH_PROJECTION } from '../../src/read-models/search';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime, type Runtime } from '../../src/runtime';
import { generatedFilings } from '../catalog-generator';

/** Streams per append statement: large enough that loading is not round-trip bound. */
const APPEND_BATCH = 2_000;

export interface CatalogBenchData {
  dataDir: string;
  filings: number;
  apiKey: string;
}

interface Marker {
  filings: number;
  apiKey: string;
  loadedAt: string;
  seconds: number;
}

/**
 * A reusable data directory (embedded Postgres) holding `n` generated catalog filings and an API key with
 * serff:view. Loading goes through the event log, as an import would, but without the per-record import
 * path: the generator's records are parsed with the import schema, turned into the importer's
 * CatalogFilingImported events (files without text or originals) and appended in bulk; the projections then
 * catch up. A marker file records a finished load, so a re-run only opens the runtime (which rebuilds any
 * projection whose version changed) and catches up.
 */
export async function catalogBenchData(dataDir: string, n: number, log: (m: string) => void): Promise<CatalogBenchData> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o755 });
  fs.chmodSync(dataDir, 0o755); // the embedded Postgres may run as another user and must reach its data directory
  const markerFile = path.join(dataDir, `catalog-bench-${n}.json`);
  const started = Date.now();
  const rt = await openRuntime(loadConfig({}, { dataDir }), createLogger('warn'), { poolMax: 4 });
  try {
    let marker: Marker | null = fs.existsSync(markerFile) ? (JSON.parse(fs.readFileSync(markerFile, 'utf8')) as Marker) : null;
    if (!marker) {
      const apiKey = await benchReadKey(rt);
      await appendFilings(rt, n, log);
      marker = { filings: n, apiKey, loadedAt: new Date().toISOString(), seconds: 0 };
    }
    // Only what the list reads: the file inventory and search projections are not on its path, and at
    // 1,000,000 filings would take the better part of an hour (the API role serves without them).
    const wanted = rt.engine.projectors.map((p) => p.name).filter((name) => name !== FILES_PROJECTION && name !== SEARCH_PROJECTION);
    log(`catching up projections ${wanted.join(', ')}`);
    await rt.engine.catchUp(wanted);
    // Vacuumed too: a bulk-loaded table read before autovacuum got to it pays for setting hint bits on first reads.
    await rt.db.knex.raw('vacuum analyze');
    if (!marker.seconds) {
      marker.seconds = Math.round((Date.now() - started) / 1000);
      fs.writeFileSync(markerFile, JSON.stringify(marker, null, 2));
      log(`loaded ${n} filings in ${marker.seconds} s`);
    }
    return { dataDir, filings: n, apiKey: marker.apiKey };
  } finally {
    await rt.close();
  }
}

/** A read-only key that may view serff filings, of a new tenant named `tenantName`. */
export async function benchReadKey(rt: Runtime, tenantName = 'Catalog bench'): Promise<string> {
  const id = rt.container.get(IdentityCommands);
  const meta = { actor: 'bench' };
  const { tenantId } = await id.createTenant({ name: tenantName, datasets: ['naic'], sharing: false }, meta);
  const { userId } = await id.createUser({ tenantId, name: 'Bench Reader', email: 'reader@example.com' }, meta);
  return (await id.createKey({ userId, readOnly: true, permissions: ['serff:view'] }, meta)).apiKey;
}

/**
 * Stream appends written `size` at a time, each batch in one transaction, with progress logged about every
 * `logEvery` filings. `flush` writes what is left.
 */
export function batchedAppender(rt: Runtime, size: number, logEvery: number, log: (m: string) => void): { push(a: StreamAppend): Promise<void>; flush(): Promise<void> } {
  const started = Date.now();
  let batch: StreamAppend[] = [];
  let done = 0;
  const flush = async () => {
    if (!batch.length) return;
    const appends = batch;
    batch = [];
    await rt.db.knex.transaction((trx) => appendMany(trx, appends).then(() => undefined));
    done += appends.length;
    if (done % logEvery < size) log(`appended ${done} filings (${Math.round(done / ((Date.now() - started) / 1000))}/s)`);
  };
  return {
    async push(a) {
      batch.push(a);
      if (batch.length >= size) await flush();
    },
    flush,
  };
}

async function appendFilings(rt: Runtime, n: number, log: (m: string) => void): Promise<void> {
  const appender = batchedAppender(rt, APPEND_BATCH, 50_000, log);
  for (const record of generatedFilings(n, { pages: 0 })) {
    const { type: _type, files, ...filing } = parseRecord(catalogFilingRecord, record);
    // What FileIngest.prepare makes of a file with neither content nor text.
    const prepared: CatalogFile[] = files.map((f) => ({ fileId: f.fileId, name: f.name, role: f.role, versionId: f.versionId, mimeType: f.mimeType, restricted: f.restricted, contentSha256: null, size: null, pageCount: null, text: null }));
    const event: CatalogFilingEvent = { type: 'CatalogFilingImported', data: { filing, files: prepared } };
    await appender.push({ streamId: `catalogFiling-${filing.id}`, expected: 0, events: [{ event, metadata: { actor: 'bench' } }] });
  }
  await appender.flush();
}
