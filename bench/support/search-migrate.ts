import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { ensureEmbeddedPostgres } from '../../infra/postgres/embedded';
import { FILTER_MARKS_SQL, ROW_TARGET, SLICES, SUMMARY_LENGTH_SQL, sliceOf } from '../../infra/search/postgres-search-index';
import { createLogger } from '../../src/util/logger';

/**
 * Moves a kept benchmark corpus from Postgres search schema 1, 2 or 3 to 4 in place, with SQL over the stored
 * rows (a reload through the projector takes 30+ minutes). 1 → 2: rows kept uncompressed up to ROW_TARGET,
 * and the summary's length stored for scoring; 2 → 3: the summary index split into SLICES partial indexes;
 * 3 → 4: filter marks (state, recent) added to every summary (~5 minutes at 100,000 filings).
 * Only the search tables change; the marker is bumped after each step (1 → 2, then to 4).
 * Usage: npx tsx bench/support/search-migrate.ts [dataDir] [filings]
 */
async function main(): Promise<void> {
  const dataDir = path.resolve(process.argv[2] ?? path.join(__dirname, '..', '..', '..', 'bench-data', 'search'));
  const filings = Number(process.argv[3] ?? 100_000);
  const markerFile = path.join(dataDir, `postgres-${filings}.json`);
  const marker = JSON.parse(fs.readFileSync(markerFile, 'utf8')) as { schema: string };
  if (!['postgres-search-1', 'postgres-search-2', 'postgres-search-3'].includes(marker.schema)) throw new Error(`${markerFile}: schema ${marker.schema}, expected postgres-search-1, 2 or 3`);
  const mark = (schema: string) => {
    fs.writeFileSync(markerFile, JSON.stringify({ ...marker, schema, migratedAt: new Date().toISOString() }, null, 2) + '\n');
    console.log(`marker ${markerFile} now ${schema}`);
  };
  const handle = await ensureEmbeddedPostgres(path.join(dataDir, 'postgres'), createLogger('warn'));
  const u = new URL(handle.connectionString);
  u.pathname = `/search_${filings}`;
  const c = new pg.Client({ connectionString: u.toString() });
  await c.connect();
  const step = async (label: string, text: string) => {
    const started = Date.now();
    await c.query(text);
    console.log(`${label}: ${((Date.now() - started) / 1000).toFixed(1)} s`);
  };
  try {
    await c.query(`set maintenance_work_mem = '512MB'`);
    if (marker.schema === 'postgres-search-1') await toUncompressedRows(step, mark);
    // The same index names as createSchema gives a fresh table (search_filings_doc_tsv_idx, ..._idx1, ...).
    const sliceNames = Array.from({ length: SLICES }, (_, k) => `search_filings_doc_tsv_idx${k ? k : ''}`);
    await step('drop the summary indexes', `drop index if exists ${sliceNames.join(', ')}`);
    if (marker.schema !== 'postgres-search-3') {
      await step('slice statistics', `create statistics if not exists search_filings_expr_stat on (${sliceOf('filing_id')}) from search_filings`);
    }
    await step('filter marks', `update search_filings f set doc_tsv = f.doc_tsv || ${FILTER_MARKS_SQL('f')}`);
    // The update wrote a second copy of every row (a summary fills most of a heap page): rewrite the table compactly.
    await step('vacuum full', 'vacuum full search_filings');
    for (let k = 0; k < SLICES; k++) {
      await step(`slice ${k}`, `create index ${sliceNames[k]} on search_filings using gin (doc_tsv) where ${sliceOf('filing_id')} = ${k}`);
    }
    await step('analyze', 'analyze search_filings');
    mark('postgres-search-4');
  } finally {
    await c.end();
    await handle.stop();
  }
}

async function toUncompressedRows(step: (label: string, text: string) => Promise<void>, mark: (schema: string) => void): Promise<void> {
  {
    await step('filings', `begin;
      create table search_filings_v2 (
        filing_id uuid not null, stream_version int not null, source text not null, source_reference text not null,
        reference_key text not null, state text not null, company_name text not null, product_name text not null,
        naic_company_codes text[], carrier_ids text[], group_id text, toi_code text, sub_toi_code text,
        normalized_outcome text not null, filing_type_normalized text not null,
        submission_date date, disposition_date date, state_status_changed_date date,
        meta_text text not null, record jsonb not null,
        meta_tsv tsvector generated always as (to_tsvector('english', meta_text)) stored,
        doc_tsv tsvector not null default '', doc_len int not null default 0)
        with (toast_tuple_target = ${ROW_TARGET});
      alter table search_filings_v2 alter column doc_tsv set storage main;
      alter table search_filings_v2 set (parallel_workers = 0);
      insert into search_filings_v2 (filing_id, stream_version, source, source_reference, reference_key, state, company_name, product_name,
          naic_company_codes, carrier_ids, group_id, toi_code, sub_toi_code, normalized_outcome, filing_type_normalized,
          submission_date, disposition_date, state_status_changed_date, meta_text, record, doc_tsv, doc_len)
        select filing_id, stream_version, source, source_reference, reference_key, state, company_name, product_name,
          naic_company_codes, carrier_ids, group_id, toi_code, sub_toi_code, normalized_outcome, filing_type_normalized,
          submission_date, disposition_date, state_status_changed_date, meta_text, record, doc_tsv || ''::tsvector, ${SUMMARY_LENGTH_SQL('doc_tsv')}
        from search_filings order by filing_id;
      drop table search_filings;
      alter table search_filings_v2 rename to search_filings;
      alter table search_filings add primary key (filing_id);
      create index on search_filings (reference_key text_pattern_ops);
      create index on search_filings (submission_date);
      create index on search_filings (state);
      commit`);
    await step('pages', `begin;
      create table search_pages_v2 (
        filing_id uuid not null, file_id uuid not null, file_name text not null, version_id text, text_revision text not null,
        page_start int, page_end int, segment int not null, body text not null,
        tsv tsvector generated always as (setweight(to_tsvector('english', file_name), 'B') || to_tsvector('english', body)) stored)
        with (toast_tuple_target = ${ROW_TARGET});
      alter table search_pages_v2 alter column tsv set storage main, alter column body set storage main;
      insert into search_pages_v2 (filing_id, file_id, file_name, version_id, text_revision, page_start, page_end, segment, body)
        select filing_id, file_id, file_name, version_id, text_revision, page_start, page_end, segment, body from search_pages order by filing_id, file_id, page_start, segment;
      drop table search_pages;
      alter table search_pages_v2 rename to search_pages;
      create index on search_pages (filing_id, file_id);
      commit`);
    // One statement each: VACUUM refuses to run in the implicit transaction of a multi-statement query.
    await step('vacuum filings', 'vacuum analyze search_filings');
    await step('vacuum pages', 'vacuum analyze search_pages');
    mark('postgres-search-2');
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
