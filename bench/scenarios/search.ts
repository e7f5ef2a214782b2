import path from 'node:path';
import { buildSearchQuery, type SearchBody } from '../../queries/search/search-query';
import type { SearchIndex } from '../../src/ports/search-index';
import { searchDataset, type SearchTarget } from '../support/search-dataset';
import type { BenchContext, BenchRow, BenchScenario } from '../types';

const CLIENTS = 8;
/** Files per filing and passages per file, as the endpoint asks for them. */
const MATCHES_PER_FILING = 20;
const PASSAGES_PER_FILE = 2;
/** Issue 4's corpus: 100,000 filings with about 500,000 pages (the demo generator writes ~11 per filing). */
const FULL_FILINGS = 100_000;
const PAGE_BUDGET = 5;

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
async function oneSearch(index: SearchIndex, body: SearchBody): Promise<number> {
  const q = buildSearchQuery(body, { canViewSerff: true }, { offset: 0 });
  const page = await index.search(q);
  if (body.includePassages) {
    const matches = page.hits.flatMap((h) => h.matches.slice(0, MATCHES_PER_FILING).map((m) => ({ filingId: h.filing.id, fileId: m.fileId })));
    await index.passages(q, matches, PASSAGES_PER_FILE);
  }
  return page.candidates;
}

interface Latency {
  p50: number;
  p95: number;
  n: number;
  /** Per query of the mix: median latency under the same load, and the candidates it found. */
  perQuery: { p50: number | null; candidates: number }[];
}

/** CLIENTS loops over the query mix for `seconds`; latency per request in ms. */
async function latency(index: SearchIndex, passages: boolean, seconds: number): Promise<Latency> {
  const times: number[] = [];
  const byQuery: number[][] = QUERIES.map(() => []);
  // Warm-up: one pass over the mix, not measured (the clock starts after it).
  const candidates: number[] = [];
  for (const b of QUERIES) candidates.push(await oneSearch(index, { ...b, includePassages: passages }));
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      for (let i = c; Date.now() < until; i++) {
        const k = i % QUERIES.length;
        const started = process.hrtime.bigint();
        await oneSearch(index, { ...QUERIES[k], includePassages: passages });
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        times.push(ms);
        byQuery[k].push(ms);
      }
    }),
  );
  if (!times.length) throw new Error('no search completed within the measuring time');
  times.sort((a, b) => a - b);
  // A query with no sample (slow engine, short run) shows as '-', not 0.
  const perQuery = byQuery.map((t, k) => ({ p50: t.length ? percentile(t.sort((a, b) => a - b), 50) : null, candidates: candidates[k] }));
  return { p50: percentile(times, 50), p95: percentile(times, 95), n: times.length, perQuery };
}

/**
 * Search speed on Postgres and, when ELASTICSEARCH_URL is set, on Elasticsearch, side by side over the
 * same corpus and the same query mix: indexing throughput (pages/s, batches of 250 filings as a
 * projector writes them), then search latency with 8 concurrent clients, without and with passages.
 * BENCH_SEARCH_ENGINES=elasticsearch leaves Postgres out. Full: issue 4's 100,000 filings with ~485,000 pages (BENCH_SEARCH_FILINGS to change), loaded once into
 * BENCH_SEARCH_DATA_DIR (default ../bench-data/search next to the checkout) and reused by later runs while
 * the corpus and the index schemas are unchanged; quick: 2,000 filings in a throw-away database.
 */
export const scenario: BenchScenario = {
  name: 'search',
  async run(ctx: BenchContext) {
    const filings = ctx.quick ? 2_000 : Number(process.env.BENCH_SEARCH_FILINGS ?? FULL_FILINGS);
    const seconds = ctx.quick ? 8 : 20;
    const dataDir = ctx.quick ? null : path.resolve(process.env.BENCH_SEARCH_DATA_DIR ?? path.join(__dirname, '..', '..', '..', 'bench-data', 'search'));
    const url = process.env.ELASTICSEARCH_URL?.trim() || null;
    const rows: BenchRow[] = [];
    if (!url) rows.push({ scenario: 'search', metric: 'elasticsearch', value: 0, unit: '', note: 'ELASTICSEARCH_URL not set: Elasticsearch not measured' });
    // BENCH_SEARCH_ENGINES=elasticsearch measures (and loads) Elasticsearch alone.
    const withoutPostgres = process.env.BENCH_SEARCH_ENGINES?.split(',').includes('postgres') === false;
    const targets: SearchTarget[] = await searchDataset({ filings, pageBudget: PAGE_BUDGET, dataDir, elasticsearchUrl: url, withoutPostgres, pool: CLIENTS, log: ctx.log });
    if (!targets.length) throw new Error('no engine to measure: BENCH_SEARCH_ENGINES leaves Postgres out and ELASTICSEARCH_URL is not set');
    const scale = `${filings.toLocaleString('en-US')} filings / ${targets[0].pages.toLocaleString('en-US')} pages`;

    const measured = new Map<string, { without: Latency; with: Latency }>();
    try {
      for (const t of targets) {
        const without = await latency(t.index, false, seconds);
        ctx.log(`${t.label} without passages: ${without.n} searches, p50 ${without.p50.toFixed(1)} ms, p95 ${without.p95.toFixed(1)} ms`);
        const withP = await latency(t.index, true, seconds);
        ctx.log(`${t.label} with passages: ${withP.n} searches, p50 ${withP.p50.toFixed(1)} ms, p95 ${withP.p95.toFixed(1)} ms`);
        measured.set(t.label, { without, with: withP });
      }
    } finally {
      for (const t of targets) await t.close();
    }

    // Per query, both engines on one line: where the time goes and whether both find as much.
    for (const [k, b] of QUERIES.entries()) {
      const cells = targets.map((t) => {
        const m = measured.get(t.label)!;
        const ms = (x: { p50: number | null }) => (x.p50 === null ? '-' : x.p50.toFixed(0));
        return `${t.label} ${ms(m.without.perQuery[k])}/${ms(m.with.perQuery[k])} ms (${m.without.perQuery[k].candidates} candidates)`;
      });
      ctx.log(`p50 without/with passages, ${JSON.stringify(b.query)}: ${cells.join(', ')}`);
    }

    // One table, the engines side by side per figure.
    const note = `${CLIENTS} clients, ${QUERIES.length}-query mix, ${scale}`;
    for (const t of targets) {
      const i = t.indexing!;
      rows.push({ scenario: 'search', metric: `${t.label} indexing`, value: i.pagesPerSecond, unit: 'pages/s', goal: i.reused ? undefined : '>= 1000', note: `${scale}${i.reused ? ' (recorded when the kept corpus was loaded, under other conditions: not graded here)' : ''}` });
    }
    const figures: { metric: string; of: (m: { without: Latency; with: Latency }) => number; goal: (label: string) => string | undefined }[] = [
      { metric: 'p50 without passages', of: (m) => m.without.p50, goal: () => undefined },
      { metric: 'p95 without passages', of: (m) => m.without.p95, goal: (l) => (l === 'postgres' ? '<= 100' : undefined) },
      { metric: 'p50 with passages', of: (m) => m.with.p50, goal: () => undefined },
      { metric: 'p95 with passages', of: (m) => m.with.p95, goal: (l) => (l === 'postgres' ? '<= 150' : '<= 50') },
    ];
    for (const f of figures) {
      for (const t of targets) {
        const goal = f.goal(t.label);
        rows.push({ scenario: 'search', metric: `${t.label} ${f.metric}`, value: f.of(measured.get(t.label)!), unit: 'ms', ...(goal ? { goal } : {}), note: t.note ? `${note}; ${t.note}` : note });
      }
    }
    return rows;
  },
};
