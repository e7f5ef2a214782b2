import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@elastic/elasticsearch';
import knexFactory, { type Knex } from 'knex';
import pg from 'pg';
import { ElasticsearchSearchIndex } from '../../infra/search/elasticsearch-search-index';
import { benchCatalogFor } from './es-catalog-records';
import { PostgresSearchIndex } from '../../infra/search/postgres-search-index';
import { ensureEmbeddedPostgres } from '../../infra/postgres/embedded';
import type { IndexWriteContext, SearchIndex } from '../../src/ports/search-index';
import { createLogger } from '../../src/util/logger';
import { benchDatabase } from './postgres';
import { demoIndexedFilings, pagesOf } from './search-corpus';

/** Filings per write, as one projector batch would carry them. */
const BATCH = 250;

/** One search engine holding the benchmark corpus. */
export interface SearchTarget {
  label: 'postgres' | 'elasticsearch';
  index: SearchIndex;
  /** Pages/s of the load that filled it (this run's, or the recorded one when the data was reused). */
  indexing: { pagesPerSecond: number; reused: boolean } | null;
  /** Pages in the corpus. */
  pages: number;
  /** What a reader of its rows should know about how it was set up (e.g. where Elasticsearch's records come from). */
  note?: string;
  close(): Promise<void>;
}

interface Writer {
  label: SearchTarget['label'];
  index: SearchIndex;
  write(run: (ctx: IndexWriteContext) => Promise<void>): Promise<void>;
  /** After the last batch: statistics for the planner, and so on; returns what the marker should record besides. */
  finish(): Promise<Partial<Marker>>;
}

/** What a loaded copy of the corpus was built from; a different value means it must be loaded again. */
interface Marker {
  filings: number;
  pageBudget: number;
  pages: number;
  schema: string;
  pagesPerSecond: number;
  loadedAt: string;
  /** Elasticsearch: documents in the index when the load ended (pages plus the engine's own per-filing documents). */
  documents?: number;
}

export interface DatasetOptions {
  filings: number;
  pageBudget: number;
  /** Keep the loaded corpus here and reuse it on the next run (null: a throw-away database and index). */
  dataDir: string | null;
  elasticsearchUrl: string | null;
  /** Leave Postgres out (to load or measure Elasticsearch alone). */
  withoutPostgres?: boolean;
  /** Connections the searches will use. */
  pool: number;
  log(message: string): void;
}

function readMarker(file: string): Marker | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as Marker;
  } catch {
    return null;
  }
}

function sameCorpus(m: Marker | null, o: DatasetOptions, schema: string): m is Marker {
  return !!m && m.filings === o.filings && m.pageBudget === o.pageBudget && m.schema === schema;
}

const pgSchema = (i: SearchIndex) => `postgres-search-${i.schemaVersion ?? 0}`;
const esSchema = (i: SearchIndex) => `elasticsearch-search-${i.schemaVersion ?? 0}`;

/** A database on the kept embedded Postgres of dataDir (or BENCH_DATABASE_URL's server), created empty when `fresh`. */
async function keptDatabase(dataDir: string, name: string, fresh: boolean): Promise<{ url: string; existed: boolean }> {
  const base = process.env.BENCH_DATABASE_URL ?? (await ensureEmbeddedPostgres(path.join(dataDir, 'postgres'), createLogger('warn'))).connectionString;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  try {
    const existed = (await c.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1;
    if (fresh && existed) await c.query(`drop database ${name} with (force)`);
    if (fresh || !existed) await c.query(`create database ${name}`);
    const u = new URL(base);
    u.pathname = `/${name}`;
    return { url: u.toString(), existed: existed && !fresh };
  } finally {
    await c.end();
  }
}

async function postgres(o: DatasetOptions): Promise<{ target: SearchTarget; writer: Writer | null; marker: string | null }> {
  const probe = new PostgresSearchIndex(null as unknown as Knex);
  const schema = pgSchema(probe);
  const markerFile = o.dataDir ? path.join(o.dataDir, `postgres-${o.filings}.json`) : null;
  const kept = markerFile ? readMarker(markerFile) : null;
  let url: string;
  let reuse = false;
  if (o.dataDir) {
    const db = `search_${o.filings}`;
    const want = sameCorpus(kept, o, schema);
    const r = await keptDatabase(o.dataDir, db, !want);
    url = r.url;
    reuse = want && r.existed;
  } else {
    url = await benchDatabase();
  }
  const knex: Knex = knexFactory({ client: 'pg', connection: url, pool: { min: 0, max: o.pool + 2 } });
  const index = new PostgresSearchIndex(knex);
  const t = (n: string) => n;
  if (!reuse) {
    if (markerFile) fs.rmSync(markerFile, { force: true });
    await knex.transaction((trx) => index.createSchema(trx, t));
  }
  const target: SearchTarget = {
    label: 'postgres',
    index,
    indexing: reuse ? { pagesPerSecond: kept!.pagesPerSecond, reused: true } : null,
    pages: reuse ? kept!.pages : 0,
    close: () => knex.destroy(),
  };
  const writer: Writer | null = reuse
    ? null
    : {
        label: 'postgres',
        index,
        write: (run) => knex.transaction((trx) => run({ trx, table: t })),
        finish: async () => {
          await knex.raw('vacuum analyze');
          return {};
        },
      };
  return { target, writer, marker: markerFile };
}

async function elasticsearch(o: DatasetOptions, url: string): Promise<{ target: SearchTarget; writer: Writer | null; marker: string | null }> {
  const client = new Client({ node: url });
  const kept = o.dataDir !== null;
  // A kept corpus lives under a fixed alias; a throw-away one under a fresh alias, deleted at the end.
  const alias = kept ? `ifrs-bench-search-${o.filings}` : `ifrs-bench-${Date.now().toString(36)}`;
  const index = new ElasticsearchSearchIndex(client, { alias });
  const schema = esSchema(index);
  const markerFile = o.dataDir ? path.join(o.dataDir, `elasticsearch-${o.filings}.json`) : null;
  const m = markerFile ? readMarker(markerFile) : null;
  // The marker says what was loaded; the alias must still hold it (Elasticsearch may have been reset since).
  const reuse = sameCorpus(m, o, schema) && m.documents !== undefined && (await client.indices.existsAlias({ name: alias })) && (await client.count({ index: alias })).count === m.documents;
  const ctx: IndexWriteContext = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
  if (!reuse) {
    if (markerFile) fs.rmSync(markerFile, { force: true });
    await index.createSchema(ctx.trx, ctx.table);
  }
  // As the service runs it: the returned page's records from the catalog read model (a bench copy of the
  // index's own records; BENCH_ES_RECORDS=elasticsearch for the adapter's fallback). A corpus loaded in this
  // run is searched with Elasticsearch's records: the copy is taken from a finished index.
  const catalog = reuse && process.env.BENCH_ES_RECORDS !== 'elasticsearch' ? await benchCatalogFor(client, alias, o.log) : null;
  const target: SearchTarget = {
    label: 'elasticsearch',
    index: catalog ? new ElasticsearchSearchIndex(client, { alias, records: catalog.records }) : index,
    indexing: reuse ? { pagesPerSecond: m!.pagesPerSecond, reused: true } : null,
    pages: reuse ? m!.pages : 0,
    note: `records from ${catalog ? 'Postgres' : 'Elasticsearch'}`,
    close: async () => {
      await catalog?.close();
      if (!kept) await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true });
      await client.close();
    },
  };
  const writer: Writer | null = reuse
    ? null
    : { label: 'elasticsearch', index, write: (run) => run(ctx), finish: async () => ({ documents: (await client.count({ index: alias })).count }) };
  return { target, writer, marker: markerFile };
}

/**
 * The search benchmark's corpus in Postgres (and Elasticsearch when a URL is given): the demo data
 * set's filings with at most `pageBudget` pages each, written in projector-sized batches. With a
 * `dataDir`, a loaded copy is kept (embedded Postgres under dataDir, a fixed Elasticsearch alias) with a
 * marker naming the corpus and the index schema, and later runs reuse it instead of loading again.
 */
export async function searchDataset(o: DatasetOptions): Promise<SearchTarget[]> {
  if (o.dataDir) fs.mkdirSync(o.dataDir, { recursive: true });
  const parts = o.withoutPostgres ? [] : [await postgres(o)];
  if (o.elasticsearchUrl) parts.push(await elasticsearch(o, o.elasticsearchUrl));
  const writers = parts.map((p) => p.writer).filter((w): w is Writer => w !== null);
  for (const p of parts) if (!p.writer) o.log(`${p.target.label}: reusing the loaded corpus (${o.filings} filings)`);
  if (writers.length) {
    const seconds = new Map(writers.map((w) => [w.label, 0]));
    let pages = 0;
    let done = 0;
    for (const batch of demoIndexedFilings(o.filings, BATCH, o.pageBudget)) {
      pages += pagesOf(batch);
      // Each engine's time is its own write; writing both at once would mix their CPU on two cores.
      for (const w of writers) {
        const started = process.hrtime.bigint();
        await w.write((c) => w.index.upsert(c, batch));
        seconds.set(w.label, seconds.get(w.label)! + Number(process.hrtime.bigint() - started) / 1e9);
      }
      done += batch.length;
      if (done % 5000 < BATCH) o.log(`indexed ${done} filings / ${pages} pages (${writers.map((w) => `${w.label} ${Math.round(pages / seconds.get(w.label)!)} pages/s`).join(', ')})`);
    }
    for (const p of parts) {
      if (!p.writer) continue;
      const pagesPerSecond = pages / seconds.get(p.writer.label)!;
      p.target.indexing = { pagesPerSecond, reused: false };
      p.target.pages = pages;
      const extra = await p.writer.finish();
      const marker: Marker = { ...extra, filings: o.filings, pageBudget: o.pageBudget, pages, schema: p.target.label === 'postgres' ? pgSchema(p.target.index) : esSchema(p.target.index), pagesPerSecond, loadedAt: new Date().toISOString() };
      if (p.marker) fs.writeFileSync(p.marker, JSON.stringify(marker, null, 2) + '\n');
    }
  }
  return parts.map((p) => p.target);
}
