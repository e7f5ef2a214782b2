import { Client } from '@elastic/elasticsearch';
import type { Knex } from 'knex';
import { ElasticsearchSearchIndex } from '../../infra/search/elasticsearch-search-index';
import { buildSearchQuery, type SearchBody } from '../../queries/search/search-query';
import type { SearchIndex } from '../../src/ports/search-index';
import { benchCatalogFor, type BenchCatalog } from '../support/es-catalog-records';
import { demoIndexedFilings, pagesOf } from '../support/search-corpus';
import type { BenchContext, BenchRow, BenchScenario } from '../types';
import { QUERIES } from './search';

const CLIENTS = 8;
const BATCH = 500;
/** Pages kept per filing: the `search` scenario's corpus (100,000 filings are ~500,000 pages, issue 4's set). */
const PAGE_BUDGET = 5;

/** The endpoint's work for one request: the page, then passages for its matches when asked. */
async function oneSearch(index: SearchIndex, body: SearchBody): Promise<void> {
  const q = buildSearchQuery(body, { canViewSerff: true }, { offset: 0 });
  const page = await index.search(q);
  if (body.includePassages) {
    const matches = page.hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId })));
    await index.passages(q, matches, 2);
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}

/**
 * The Elasticsearch node's own process CPU (ms since it started), as it reports it: no pid lookup, any host.
 * The node refreshes the figure once a second, so it is read after a quiet second: fresh, and the idle
 * second adds a few ms to hundreds of searches.
 */
async function esCpuMs(client: Client): Promise<number> {
  await new Promise((r) => setTimeout(r, 1_100));
  const res = await client.nodes.stats({ metric: 'process' });
  return Object.values(res.nodes).reduce((n, node) => n + (node.process?.cpu?.total_in_millis ?? 0), 0);
}

interface Latency {
  p50: number;
  p95: number;
  n: number;
  perQuery: Map<string, number[]>;
  /** Elasticsearch's and this process's CPU per search (ms): what a search costs, whatever else runs on the machine. */
  esCpu: number;
  nodeCpu: number;
  /** The bench catalog's Postgres CPU per search (records), 0 without it. */
  pgCpu: number;
}

async function latency(client: Client, index: SearchIndex, catalog: BenchCatalog | null, passages: boolean, clients: number, seconds: number): Promise<Latency> {
  for (const b of QUERIES) await oneSearch(index, { ...b, includePassages: passages });
  const es0 = await esCpuMs(client);
  const pg0 = catalog?.cpuSeconds() ?? 0;
  const node0 = process.cpuUsage();
  const times: number[] = [];
  const perQuery = new Map<string, number[]>();
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = c; Date.now() < until; i++) {
        const body = QUERIES[i % QUERIES.length];
        const started = process.hrtime.bigint();
        await oneSearch(index, { ...body, includePassages: passages });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        times.push(ms);
        perQuery.set(body.query, [...(perQuery.get(body.query) ?? []), ms]);
      }
    }),
  );
  const nodeUsed = process.cpuUsage(node0);
  const pgCpu = (((catalog?.cpuSeconds() ?? 0) - pg0) * 1000) / times.length;
  const esCpu = ((await esCpuMs(client)) - es0) / times.length;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: times.length, perQuery, esCpu, pgCpu, nodeCpu: (nodeUsed.user + nodeUsed.system) / 1000 / times.length };
}

/**
 * Elasticsearch search latency alone (the side-by-side `search` scenario indexes Postgres too, which
 * takes most of its time). BENCH_ES_FILINGS filings (quick: 2,000; full: 20,000; the goal is stated at
 * 100,000) of at most 5 pages each, as in `search`, are indexed once under the alias `ifrs-esbench-<n>`
 * (BENCH_ES_ALIAS overrides it) and kept (BENCH_ES_KEEP=1) so that query changes can be measured again
 * without re-indexing; then the shared query mix of `search` runs with 1 and 8 clients. With 8 clients it
 * also reports the CPU a search costs, Elasticsearch's (from its node stats) and this process's, which,
 * unlike latency, holds up on a machine shared with other work. Records come from a bench catalog in Postgres,
 * as the service reads them from the catalog read model (its CPU is reported too); BENCH_ES_RECORDS=elasticsearch
 * reads them from the filing documents instead (the adapter without the port).
 * Runs only when named (`npm run bench -- search-elasticsearch`): the `search` scenario already reports
 * Elasticsearch next to Postgres, and a full run should not index the corpus twice.
 */
export const scenario: BenchScenario = {
  name: 'search-elasticsearch',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    if (!process.argv.slice(2).includes('search-elasticsearch')) return [];
    const url = process.env.ELASTICSEARCH_URL?.trim();
    if (!url) return [{ scenario: 'search-elasticsearch', metric: 'elasticsearch', value: 0, unit: '', note: 'ELASTICSEARCH_URL not set: not measured' }];
    const filings = Number(process.env.BENCH_ES_FILINGS ?? (ctx.quick ? 2_000 : 20_000));
    const seconds = ctx.quick ? 8 : 20;
    const keep = process.env.BENCH_ES_KEEP === '1';
    const client = new Client({ node: url });
    const alias = process.env.BENCH_ES_ALIAS ?? `ifrs-esbench-${filings}`;
    let catalog: BenchCatalog | null = null;
    let index = new ElasticsearchSearchIndex(client, { alias });
    const wctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
    const rows: BenchRow[] = [];
    try {
      const exists = keep && (await client.indices.existsAlias({ name: alias }));
      if (!exists) {
        await index.createSchema(wctx.trx, wctx.table);
        let pages = 0;
        const started = Date.now();
        for (const batch of demoIndexedFilings(filings, BATCH, PAGE_BUDGET)) {
          pages += pagesOf(batch);
          await index.upsert(wctx, batch);
        }
        const s = (Date.now() - started) / 1000;
        ctx.log(`indexed ${filings} filings / ${pages} pages in ${s.toFixed(0)} s`);
        rows.push({ scenario: 'search-elasticsearch', metric: `indexing (${filings} filings)`, value: pages / s, unit: 'pages/s' });
        await client.indices.forcemerge({ index: alias, max_num_segments: 1 }).catch(() => undefined);
      }
      if (process.env.BENCH_ES_RECORDS !== 'elasticsearch') {
        catalog = await benchCatalogFor(client, alias, ctx.log);
        index = new ElasticsearchSearchIndex(client, { alias, records: catalog.records });
      }
      for (const passages of [false, true]) {
        for (const clients of [1, CLIENTS]) {
          const r = await latency(client, index, catalog, passages, clients, seconds);
          const label = `${passages ? 'with' : 'without'} passages, ${clients} client${clients > 1 ? 's' : ''}`;
          ctx.log(`${label}: ${r.n} searches, p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms; CPU per search: Elasticsearch ${r.esCpu.toFixed(1)} ms, node ${r.nodeCpu.toFixed(1)} ms${catalog ? `, Postgres ${r.pgCpu.toFixed(1)} ms` : ''}`);
          if (process.env.BENCH_ES_PER_QUERY === '1') {
            for (const [q, t] of r.perQuery) ctx.log(`   ${q.padEnd(40)} median ${percentile([...t].sort((a, b) => a - b), 50).toFixed(1)} ms`);
          }
          const note = `${filings} filings, ${QUERIES.length}-query mix, records from ${catalog ? 'Postgres' : 'Elasticsearch'}`;
          rows.push({ scenario: 'search-elasticsearch', metric: `p50 ${label}`, value: r.p50, unit: 'ms', note });
          rows.push({ scenario: 'search-elasticsearch', metric: `p95 ${label}`, value: r.p95, unit: 'ms', ...(passages && clients === CLIENTS ? { goal: '<= 50' } : {}), note });
          if (clients === CLIENTS) {
            rows.push({ scenario: 'search-elasticsearch', metric: `Elasticsearch CPU per search ${passages ? 'with' : 'without'} passages`, value: r.esCpu, unit: 'ms', note });
            rows.push({ scenario: 'search-elasticsearch', metric: `node CPU per search ${passages ? 'with' : 'without'} passages`, value: r.nodeCpu, unit: 'ms', note: `${note}; the adapter's side` });
            if (catalog) rows.push({ scenario: 'search-elasticsearch', metric: `Postgres CPU per search ${passages ? 'with' : 'without'} passages`, value: r.pgCpu, unit: 'ms', note: `${note}; the records` });
          }
        }
      }
    } finally {
      await catalog?.close();
      if (!keep) await client.indices.delete({ index: `${alias}-*`, ignore_unavailable: true, allow_no_indices: true });
      await client.close();
    }
    return rows;
  },
};
