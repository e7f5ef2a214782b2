import path from 'node:path';
import pg from 'pg';
import { ensureEmbeddedPostgres } from '../../infra/postgres/embedded';
import { createLogger } from '../../src/util/logger';
import type { Principal } from '../../src/domain/principal';
import knexFactory from 'knex';
import { CatalogListQuery, catalogFilter, sortKeys } from '../../queries/catalog/catalog-filters';
import { catalogListQuery } from '../../queries/catalog/catalog-list-query';
import type { KeysetPosition } from '../../queries/catalog/keyset';
import { catalogListColumns, catalogPageOutput } from '../../queries/catalog/catalog-record';
import { CatalogNames, withNamesVersion } from '../../queries/catalog/catalog-names-cache';
import { catalogBenchData } from '../support/catalog-data';
import { BIN, SERVE_LOG_LEVEL, benchRounds, load, medianRun, roundsNote, rssMb, startServerProcess, type LoadResult, type RoundsResult } from '../support/load';
import { cpuSeconds, postgresCpuSeconds } from '../support/process-cpu';
import type { BenchRow, BenchScenario } from '../types';
import { runStandalone } from '../support/standalone';

const LIMIT = 50;
const CONNECTIONS = 16;
const STEADY_RATE = 1_500;
const DEEP_PAGE = 20_000;

/**
 * The shapes of issue 3: the default list and the three filters users combine. Values hit the generator's
 * data (bench/catalog-generator.ts): TX is ~3 % of filings and 04.0 one TOI in six; "Company 1004" is ten
 * of its 2,000 companies (~0.5 %), "Company 10042" one (~0.05 %); a year of submissions narrowed to one
 * outcome is ~2 %.
 */
const SHAPES: { name: string; query: Record<string, string> }[] = [
  { name: 'default (-submissionDate)', query: {} },
  { name: 'state + toi', query: { state: 'TX', toi: '04.0' } },
  { name: 'companyNameContains (10 companies)', query: { companyNameContains: 'Company 1004' } },
  { name: 'companyNameContains (1 company)', query: { companyNameContains: 'Company 10042' } },
  { name: 'date range + normalizedOutcome', query: { submissionDateFrom: '2023-01-01', submissionDateTo: '2023-12-31', normalizedOutcome: 'APPROVED' } },
];

/** What the route resolves for the bench key (a serff:view key), for the direct SQL. */
const PRINCIPAL = { permissions: ['serff:view'] } as unknown as Principal;

function href(base: string, query: Record<string, string>): string {
  return `${base}/insurance/filings?${new URLSearchParams({ ...query, limit: String(LIMIT) }).toString()}`;
}

interface Walk {
  pages: number;
  rows: number;
  seconds: number;
  cursors: Map<number, string>;
  positions: Map<number, KeysetPosition>;
}

/** Follows nextCursor from page 1, keeping the cursor (and the keyset position it stands for) of the wanted pages. */
async function walk(base: string, headers: Record<string, string>, until: number, wanted: number[]): Promise<Walk> {
  const started = Date.now();
  const out: Walk = { pages: 0, rows: 0, seconds: 0, cursors: new Map(), positions: new Map() };
  const seen = new Set<string>();
  let cursor: string | null = null;
  for (let page = 1; page <= until; page++) {
    if (wanted.includes(page) && cursor) out.cursors.set(page, cursor);
    const res = await fetch(cursor ? `${href(base, {})}&cursor=${cursor}` : href(base, {}), { headers });
    if (res.status !== 200) throw new Error(`page ${page}: ${res.status} ${await res.text()}`);
    const body = (await res.json()) as { filings: { id: string; submissionDate: string | null }[]; nextCursor: string | null };
    for (const f of body.filings) {
      if (seen.has(f.id)) throw new Error(`page ${page} repeats filing ${f.id}`);
      seen.add(f.id);
    }
    out.pages = page;
    out.rows += body.filings.length;
    const last = body.filings[body.filings.length - 1];
    if (wanted.includes(page + 1) && last) out.positions.set(page + 1, { v: [last.submissionDate], id: last.id });
    if (!body.nextCursor) break;
    cursor = body.nextCursor;
  }
  out.seconds = (Date.now() - started) / 1000;
  return out;
}

/** `clients` pg connections running the statement back to back for `seconds`; `pgUs`: the server's CPU per query. */
async function direct(connectionString: string, dataDir: string, sql: string, bindings: unknown[], clients: number, seconds: number): Promise<{ qps: number; meanMs: number; pgUs: number }> {
  const pool = new pg.Pool({ connectionString, max: clients });
  // The server's Postgres stops with it at the end of the scenario: an idle client's goodbye is no failure.
  pool.on('error', () => undefined);
  // Prepared, as the endpoint runs it (infra/postgres/prepared.ts).
  const statement = { name: 'bench_catalog_list', text: sql, values: bindings };
  try {
    for (let i = 0; i < 20; i++) await pool.query(statement);
    let n = 0;
    let busy = 0;
    const pgBefore = postgresCpuSeconds(dataDir);
    const until = Date.now() + seconds * 1000;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: clients }, async () => {
        while (Date.now() < until) {
          const t = process.hrtime.bigint();
          await pool.query(statement);
          busy += Number(process.hrtime.bigint() - t) / 1e6;
          n++;
        }
      }),
    );
    return { qps: n / ((Date.now() - started) / 1000), meanMs: busy / n, pgUs: ((postgresCpuSeconds(dataDir) - pgBefore) * 1e6) / n };
  } finally {
    await pool.end();
  }
}

/**
 * GET /insurance/filings on a large generated catalog (1,000,000 filings; quick: 20,000) served by a real
 * `ifrs serve --role api` process: each shape at saturation and at 1,500 req/s, a deep page reached by
 * walking the keyset (page 20,000; quick: the last page) against page 1, and the same SQL run directly
 * with pg in the same run (HTTP req/s as a share of pg queries/s at the same concurrency). The data set
 * is kept in BENCH_DATA_DIR (default: a bench-data folder next to the checkout), so re-runs skip loading.
 */
export const scenario: BenchScenario = {
  name: 'catalog-list',
  async run(ctx) {
    const n = Number(process.env.BENCH_CATALOG_FILINGS ?? (ctx.quick ? 20_000 : 1_000_000));
    const seconds = ctx.quick ? 3 : 10;
    const rounds = benchRounds(ctx.quick);
    const base = process.env.BENCH_DATA_DIR ?? path.resolve(__dirname, '../../../bench-data');
    const data = await catalogBenchData(path.join(base, `catlist-${n}`), n, ctx.log);
    const scale = `${n.toLocaleString('en-US')} filings`;
    const rows: BenchRow[] = [];
    const row = (metric: string, value: number, unit: string, goal?: string, note?: string) => rows.push({ scenario: 'catalog-list', metric, value, unit, ...(goal ? { goal } : {}), note: note ? `${note}; ${scale}` : scale });

    const serve = await startServerProcess(BIN, ['serve', '--port', '0', '--role', 'api', '--data-dir', data.dataDir], { LOG_LEVEL: SERVE_LOG_LEVEL });
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb(serve.child.pid!))), 250);
    const pgHandle = await ensureEmbeddedPostgres(data.dataDir, createLogger('warn'));
    // Connected: the filters look up carriers and matched names before the page's SQL is built.
    const knex = knexFactory({ client: 'pg', connection: pgHandle.connectionString, pool: { min: 0, max: 1 } });
    const names = new CatalogNames(knex);
    try {
      const headers = { Authorization: `Bearer ${data.apiKey}` };
      const deep = Math.min(DEEP_PAGE, Math.ceil(n / LIMIT));
      const mid = Math.ceil(deep / 2);
      // BENCH_CATALOG_ONLY=contains,page: only the targets whose names contain one of these (comparing one shape
      // before and after a change); the deep pages need the traversal.
      const only = process.env.BENCH_CATALOG_ONLY?.split(',').filter(Boolean);
      const wanted = (name: string) => !only || only.some((o) => name.includes(o));
      const targets = SHAPES.map((s) => ({ name: s.name, url: href(serve.url, s.query), query: s.query, after: null as KeysetPosition | null }));
      if (wanted('page')) {
        const w = await walk(serve.url, headers, deep, [mid, deep]);
        ctx.log(`walked ${w.pages} pages (${w.rows} filings) in ${w.seconds.toFixed(1)} s`);
        if (w.pages !== deep) throw new Error(`the traversal ended at page ${w.pages}, not ${deep}`);
        row(`keyset traversal to page ${deep.toLocaleString('en-US')}`, w.pages / w.seconds, 'pages/s', undefined, `one client, no duplicates among ${w.rows.toLocaleString('en-US')} filings`);
        targets.push(
          { name: `page ${mid.toLocaleString('en-US')}`, url: `${href(serve.url, {})}&cursor=${w.cursors.get(mid)}`, query: {}, after: w.positions.get(mid)! },
          { name: `page ${deep.toLocaleString('en-US')}`, url: `${href(serve.url, {})}&cursor=${w.cursors.get(deep)}`, query: {}, after: w.positions.get(deep)! },
        );
      }
      const results = new Map<string, { sat: RoundsResult; steady: LoadResult; serial: LoadResult; pg: { qps: number; meanMs: number }; pgSerial: { qps: number; meanMs: number } }>();
      const cpuUs = (pid: number) => {
        const c = cpuSeconds(pid);
        return (c.user + c.sys) * 1e6;
      };
      for (const t of targets.filter((x) => wanted(x.name))) {
        await load(t.url, { connections: CONNECTIONS, seconds: 1, headers });
        // CPU per request, which (unlike req/s) holds up while other work shares the machine.
        const [apiBefore, pgBefore] = [cpuUs(serve.child.pid!), postgresCpuSeconds(data.dataDir) * 1e6];
        const sat = await medianRun(rounds, () => load(t.url, { connections: CONNECTIONS, seconds, headers }));
        const apiPerRequest = (cpuUs(serve.child.pid!) - apiBefore) / sat.totalRequests;
        const pgPerRequest = (postgresCpuSeconds(data.dataDir) * 1e6 - pgBefore) / sat.totalRequests;
        const steady = await load(t.url, { connections: CONNECTIONS, seconds, headers, rate: STEADY_RATE });
        const serialRun = await load(t.url, { connections: 1, seconds: Math.max(2, seconds / 2), headers });
        // autocannon keeps latencies in whole milliseconds, so its mean of sub-millisecond answers is mostly
        // rounding; one connection sends back to back, so the time per request is exactly 1 / its rate.
        const serial = { ...serialRun, mean: 1000 / serialRun.rps };
        const q = CatalogListQuery.parse(t.query);
        const keys = sortKeys(q.sort);
        const columns = catalogListColumns(keys.map((k) => k.column), false);
        // As the endpoint runs it: ...Contains terms matched in the API's copy of the names, the page carrying
        // the names version (queries/catalog/catalog-names-cache.ts).
        const contains = q.companyNameContains !== undefined || q.productNameContains !== undefined;
        const filter = await catalogFilter(knex, q, PRINCIPAL, contains ? await names.current() : undefined);
        const page = catalogListQuery(filter, keys, LIMIT + 1, t.after, columns, catalogPageOutput(false));
        const { text: sql, values: bindings } = contains ? withNamesVersion(page, catalogPageOutput(false)) : page;
        const pgSat = await direct(pgHandle.connectionString, data.dataDir, sql, bindings as unknown[], CONNECTIONS, seconds);
        const pgSerial = await direct(pgHandle.connectionString, data.dataDir, sql, bindings as unknown[], 1, Math.max(2, seconds / 2));
        results.set(t.name, { sat, steady, serial, pg: pgSat, pgSerial });
        ctx.log(
          `${t.name}: ${Math.round(sat.rps)} req/s (p99 ${sat.p99} ms), at ${STEADY_RATE}/s p99 ${steady.p99} ms, one client ${serial.mean.toFixed(2)} ms; ` +
            `pg ${Math.round(pgSat.qps)} q/s, one client ${pgSerial.meanMs.toFixed(2)} ms; CPU/request: API ${Math.round(apiPerRequest)} us, Postgres ${Math.round(pgPerRequest)} us (SQL alone ${Math.round(pgSat.pgUs)} us)`,
        );
        // Failures (timeouts of a slow shape at saturation) are reported, not fatal: the other shapes still count.
        const failed = (r: LoadResult) => (r.errors + r.non2xx ? `, ${r.errors} errors/timeouts, ${r.non2xx} non-2xx` : '');
        row(`${t.name}: req/s at saturation`, sat.rps, 'req/s', '>= 2500', `${CONNECTIONS} connections, limit ${LIMIT}, p99 ${sat.p99} ms${failed(sat)}; ${sat.generator}, ${Math.round(sat.generatorCpuUs)} us of its CPU per request${sat.rates.length > 1 ? `; ${roundsNote(sat)}` : ''}`);
        row(`${t.name}: p99 at ${STEADY_RATE} req/s`, steady.p99, 'ms', '< 20', `achieved ${Math.round(steady.rps)} req/s${failed(steady)}`);
        row(`${t.name}: CPU per request (API + Postgres)`, apiPerRequest + pgPerRequest, 'us', undefined, `at saturation: API process ${Math.round(apiPerRequest)} us, Postgres ${Math.round(pgPerRequest)} us (the page's SQL alone with pg: ${Math.round(pgSat.pgUs)} us/query)`);
        row(`${t.name}: HTTP vs the same SQL with pg`, (sat.rps / pgSat.qps) * 100, '%', undefined, `pg ${Math.round(pgSat.qps)} queries/s at ${CONNECTIONS} connections; one client: HTTP ${serial.mean.toFixed(2)} ms, pg ${pgSerial.meanMs.toFixed(2)} ms`);
      }
      if (wanted(targets[0].name)) {
        // The default shape again with the in-process generator, to compare with result files from before wrk.
        const cross = await load(targets[0].url, { connections: CONNECTIONS, seconds, headers, generator: 'autocannon' });
        row(`${targets[0].name}: req/s at saturation, autocannon cross-check`, cross.rps, 'req/s', undefined, `${cross.generator}, ${Math.round(cross.generatorCpuUs)} us of its CPU per request on the cores the API uses; p99 ${cross.p99} ms`);
        // A client that asks for a content coding gets the page (above the 1 KB threshold) compressed.
        for (const coding of ['gzip', 'br']) {
          const c = await load(targets[0].url, { connections: CONNECTIONS, seconds, headers: { ...headers, 'Accept-Encoding': coding } });
          row(`${targets[0].name}: req/s at saturation, Accept-Encoding: ${coding}`, c.rps, 'req/s', undefined, `${c.generator}; ${Math.round(c.bytes / Math.max(1, c.requests))} bytes per answer with headers; p99 ${c.p99} ms${c.non2xx ? `, ${c.non2xx} non-2xx` : ''}`);
        }
      }
      const first = results.get(SHAPES[0].name);
      for (const page of [mid, deep]) {
        const r = results.get(`page ${page.toLocaleString('en-US')}`);
        if (!first || !r) continue;
        row(`page ${page.toLocaleString('en-US')} vs page 1 (one client, HTTP)`, r.serial.mean / first.serial.mean, 'x', '<= 1.5', `${r.serial.mean.toFixed(2)} ms vs ${first.serial.mean.toFixed(2)} ms`);
        row(`page ${page.toLocaleString('en-US')} vs page 1 (SQL alone)`, r.pgSerial.meanMs / first.pgSerial.meanMs, 'x', '<= 1.5', `${r.pgSerial.meanMs.toFixed(2)} ms vs ${first.pgSerial.meanMs.toFixed(2)} ms`);
      }
      maxRss = Math.max(maxRss, rssMb(serve.child.pid!));
      row('API process peak RSS under these loads', maxRss, 'MB', '< 300');
      return rows;
    } finally {
      clearInterval(sampler);
      await knex.destroy();
      await serve.stop();
    }
  },
};

if (require.main === module) runStandalone(scenario);
