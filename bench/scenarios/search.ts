import { Client } from '@elastic/elasticsearch';
import knexFactory, { type Knex } from 'knex';
import { ElasticsearchSearchIndex } from '../../infra/search/elasticsearch-search-index';
import { PostgresSearchIndex } from '../../infra/search/postgres-search-index';
import { buildSearchQuery, type SearchBody } from '../../queries/search/search-query';
import type { IndexWriteContext, SearchIndex } from '../../src/ports/search-index';
import { benchDatabase } from '../support/postgres';
import { demoIndexedFilings, pagesOf } from '../support/search-corpus';
import type { BenchContext, BenchRow, BenchScenario } from '../types';

/** Filings per write, as one projector batch would carry them. */
const BATCH = 250;
const CLIENTS = 8;
/** Files per filing and passages per file, as the endpoint asks for them. */
const MATCHES_PER_FILING = 20;
const PASSAGES_PER_FILE = 2;

/** A mix of what researchers type: topics, common rate language, rare terms, filters, a phrase with a narrowing filter, a tracking-number prefix, relevance and date sorts. */
export const QUERIES: SearchBody[] = [
  { query: 'wildfire surcharge', intent: 'how carriers price wildfire exposure' },
  { query: 'roof age schedule hail', intent: 'roof settlement by age', sort: [{ field: 'relevance', direction: 'desc' }] },
  { query: 'telematics discount', intent: 'usage based auto pricing programs' },
  { query: 'indicated rate change', intent: 'auto rate increases and their support', filters: [{ field: 'state', operator: 'in', value: ['TX', 'FL', 'CA'] }] },
  { query: 'objection letter credibility', intent: 'regulator objections to rate indications', sort: [{ field: 'relevance', direction: 'desc' }] },
  { query: 'hurricane deductible', intent: 'percentage deductibles for windstorm', filters: [{ field: 'state', operator: 'eq', value: 'FL' }] },
  { query: 'loss trend development factors', intent: 'actuarial support for trend selections', sort: [{ field: 'relevance', direction: 'desc' }] },
  { query: '"rate change" territory', intent: 'territory relativities in rate revisions', filters: [{ field: 'submissionDate', operator: 'gte', value: '2022-01-01' }] },
  { query: 'endorsement exclusion water damage', intent: 'homeowners water exclusions', dataScope: 'all' },
  { query: 'minimum premium policy fee', intent: 'fees and minimum premiums in manuals', sort: [{ field: 'companyName', direction: 'asc' }] },
  { query: 'credit based insurance score', intent: 'use of credit in underwriting', sort: [{ field: 'relevance', direction: 'desc' }] },
  { query: '23-0', intent: 'a Florida file log number prefix' },
  // Rare terms of the generator's vocabulary (RARE_TERMS): few filings hold them.
  { query: 'crypto wallet theft sublimit', intent: 'cyber sublimits for stolen digital assets' },
  { query: 'solar panel replacement cost', intent: 'homeowners coverage for solar equipment', filters: [{ field: 'state', operator: 'in', value: ['CA', 'AZ', 'NV', 'TX'] }] },
];

function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The endpoint's work for one request: the page, then passages for its matches when asked. */
async function oneSearch(index: SearchIndex, body: SearchBody): Promise<void> {
  const q = buildSearchQuery(body, { canViewSerff: true }, { offset: 0 });
  const page = await index.search(q);
  if (body.includePassages) {
    const matches = page.hits.flatMap((h) => h.matches.slice(0, MATCHES_PER_FILING).map((m) => ({ filingId: h.filing.id, fileId: m.fileId })));
    await index.passages(q, matches, PASSAGES_PER_FILE);
  }
}

/** CLIENTS loops over the query mix for `seconds`; latency per request in ms. */
async function latency(index: SearchIndex, passages: boolean, seconds: number): Promise<{ p50: number; p95: number; n: number }> {
  const times: number[] = [];
  // Warm-up: one pass over the mix, not measured (the clock starts after it).
  for (const b of QUERIES) await oneSearch(index, { ...b, includePassages: passages });
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; Date.now() < until; i++) {
        const started = process.hrtime.bigint();
        await oneSearch(index, { ...QUERIES[i % QUERIES.length], includePassages: passages });
        times.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }),
  );
  if (!times.length) throw new Error('no search completed within the measuring time');
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: times.length };
}

interface Target {
  label: string;
  index: SearchIndex;
  write(ctx: IndexWriteContext | null, run: (ctx: IndexWriteContext) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

async function postgresTarget(): Promise<Target> {
  const knex: Knex = knexFactory({ client: 'pg', connection: await benchDatabase(), pool: { min: 0, max: CLIENTS + 2 } });
  const index = new PostgresSearchIndex(knex);
  const t = (n: string) => n;
  await knex.transaction((trx) => index.createSchema(trx, t));
  return {
    label: 'postgres',
    index,
    write: (_ctx, run) => knex.transaction((trx) => run({ trx, table: t })),
    close: async () => {
      await knex.raw('analyze');
      await knex.destroy();
    },
  };
}

async function elasticsearchTarget(url: string): Promise<{ target: Target; client: Client; alias: string }> {
  const client = new Client({ node: url });
  const alias = `ifrs-bench-${Date.now().toString(36)}`;
  const index = new ElasticsearchSearchIndex(client, { alias });
  const ctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
  await index.createSchema(ctx.trx, ctx.table);
  return {
    client,
    alias,
    target: {
      label: 'elasticsearch',
      index,
      write: (_ctx, run) => run(ctx),
      close: async () => {
        await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true });
        await client.close();
      },
    },
  };
}

/**
 * Search speed on both adapters over the demo data set's filings: indexing throughput (pages/s,
 * batches of 250 filings as a projector writes them, each acknowledged and refreshed), then search
 * latency with 8 concurrent clients for a mix of queries, without and with passages.
 * Full: BENCH_SEARCH_FILINGS (default 20,000 filings, ~230,000 pages: 100,000 filings / 1.15 M
 * pages would take well over 10 minutes per adapter on the 2-core machine); quick: 2,000.
 */
export const scenario: BenchScenario = {
  name: 'search',
  async run(ctx: BenchContext) {
    const filings = ctx.quick ? 2_000 : Number(process.env.BENCH_SEARCH_FILINGS ?? 20_000);
    const seconds = ctx.quick ? 8 : 20;
    const rows: BenchRow[] = [];
    const targets: Target[] = [await postgresTarget()];
    const url = process.env.ELASTICSEARCH_URL?.trim();
    if (url) targets.push((await elasticsearchTarget(url)).target);
    else rows.push({ scenario: 'search', metric: 'elasticsearch', value: 0, unit: '', note: 'ELASTICSEARCH_URL not set: Elasticsearch not measured' });

    const writeSeconds = new Map(targets.map((t) => [t.label, 0]));
    let pages = 0;
    let done = 0;
    for (const batch of demoIndexedFilings(filings, BATCH)) {
      pages += pagesOf(batch);
      for (const t of targets) {
        const started = process.hrtime.bigint();
        await t.write(null, (c) => t.index.upsert(c, batch));
        writeSeconds.set(t.label, writeSeconds.get(t.label)! + Number(process.hrtime.bigint() - started) / 1e9);
      }
      done += batch.length;
      if (done % 5000 < BATCH) ctx.log(`indexed ${done} filings / ${pages} pages (${targets.map((t) => `${t.label} ${Math.round(pages / writeSeconds.get(t.label)!)} pages/s`).join(', ')})`);
    }
    const scale = `${filings.toLocaleString('en-US')} filings / ${pages.toLocaleString('en-US')} pages`;
    for (const t of targets) {
      rows.push({ scenario: 'search', metric: `${t.label} indexing (${scale})`, value: pages / writeSeconds.get(t.label)!, unit: 'pages/s', goal: '>= 1000' });
    }
    for (const t of targets) {
      const without = await latency(t.index, false, seconds);
      ctx.log(`${t.label} without passages: ${without.n} searches, p50 ${without.p50.toFixed(1)} ms, p95 ${without.p95.toFixed(1)} ms`);
      const withP = await latency(t.index, true, seconds);
      ctx.log(`${t.label} with passages: ${withP.n} searches, p50 ${withP.p50.toFixed(1)} ms, p95 ${withP.p95.toFixed(1)} ms`);
      const pg = t.label === 'postgres';
      const note = `${CLIENTS} clients, ${QUERIES.length}-query mix, ${scale}`;
      rows.push({ scenario: 'search', metric: `${t.label} p50 without passages`, value: without.p50, unit: 'ms', note });
      rows.push({ scenario: 'search', metric: `${t.label} p95 without passages`, value: without.p95, unit: 'ms', ...(pg ? { goal: '<= 100' } : {}), note });
      rows.push({ scenario: 'search', metric: `${t.label} p50 with passages`, value: withP.p50, unit: 'ms', note });
      rows.push({ scenario: 'search', metric: `${t.label} p95 with passages`, value: withP.p95, unit: 'ms', goal: pg ? '<= 150' : '<= 50', note });
      await t.close();
    }
    return rows;
  },
};
