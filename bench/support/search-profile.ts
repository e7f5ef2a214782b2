import fs from 'node:fs';
import path from 'node:path';
import knexFactory from 'knex';
import pg from 'pg';
import { ensureEmbeddedPostgres } from '../../infra/postgres/embedded';
import { PostgresSearchIndex } from '../../infra/search/postgres-search-index';
import { buildSearchQuery } from '../../queries/search/search-query';
import { createLogger } from '../../src/util/logger';
import { QUERIES } from '../scenarios/search';

/**
 * Where a search of the bench mix spends its time, one query at a time on one connection of the kept corpus:
 * wall time, the backend's CPU (from /proc) and node's CPU per search, and with --explain the
 * EXPLAIN (ANALYZE, BUFFERS) of the main statement under its generic plan (as the prepared statement runs it).
 * Usage: npx tsx bench/support/search-profile.ts [dataDir] [--explain] [--runs=N] [--only=k,...] [--passages]
 */
const CLK_TCK = 100;
const args = process.argv.slice(2);
const dataDir = path.resolve(args.find((a) => !a.startsWith('--')) ?? path.join(__dirname, '..', '..', '..', 'bench-data', 'search'));
const explain = args.includes('--explain');
const runs = Number(args.find((a) => a.startsWith('--runs='))?.slice(7) ?? 5);
const only = args.find((a) => a.startsWith('--only='))?.slice(7).split(',').map(Number) ?? null;
const passageModes = args.includes('--passages') ? [true] : args.includes('--both') ? [false, true] : [false];
/** Writes each query's statements (text and values) as JSON into this directory, to replay them alone. */
const dumpDir = args.find((a) => a.startsWith('--dump='))?.slice(7) ?? null;

/** The statements one search sent, as text and values. */
const sent: { text: string; values: unknown[] }[] = [];
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
  const q = a[0] as { text?: string; values?: unknown[] } | string;
  if (typeof q === 'object' && q?.text) sent.push({ text: q.text, values: q.values ?? [] });
  else if (typeof q === 'string') sent.push({ text: q, values: (a[1] as unknown[]) ?? [] });
  return (originalQuery as (...x: unknown[]) => unknown).apply(this, a);
} as typeof pg.Client.prototype.query;

const cpuTicks = (pid: number) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};

async function main(): Promise<void> {
  const handle = await ensureEmbeddedPostgres(path.join(dataDir, 'postgres'), createLogger('warn'));
  const u = new URL(handle.connectionString);
  u.pathname = '/search_100000';
  const knex = knexFactory({ client: 'pg', connection: u.toString(), pool: { min: 1, max: 1 } });
  try {
    const pid = Number((await knex.raw('select pg_backend_pid() as p')).rows[0].p);
    const index = new PostgresSearchIndex(knex);
    // A statement Postgres keeps planning anew (custom plans past the first 5) pays its planning on every run.
    const customPlans = async () =>
      Number((await knex.raw(`select coalesce(sum(custom_plans), 0)::int as n from pg_prepared_statements where statement like '%serial_only%'`)).rows[0].n);
    for (const passages of passageModes) {
      for (const [k, body] of QUERIES.entries()) {
        if (only && !only.includes(k)) continue;
        const q = buildSearchQuery({ ...body, includePassages: passages }, { canViewSerff: true }, { offset: 0 });
        const one = async () => {
          const page = await index.search(q);
          if (passages) await index.passages(q, page.hits.flatMap((h) => h.matches.slice(0, 20).map((m) => ({ filingId: h.filing.id, fileId: m.fileId }))), 2);
          return page;
        };
        // Past the 5 custom plans, so the generic plan is what is timed.
        for (let i = 0; i < 6; i++) await one();
        let wall = 0;
        let pgTicks = 0;
        let nodeUs = 0;
        let page = await one();
        const customBefore = await customPlans();
        for (let i = 0; i < runs; i++) {
          const t0 = process.hrtime.bigint();
          const c0 = process.cpuUsage();
          const p0 = cpuTicks(pid);
          sent.length = 0;
          page = await one();
          pgTicks += cpuTicks(pid) - p0;
          const c = process.cpuUsage(c0);
          nodeUs += c.user + c.system;
          wall += Number(process.hrtime.bigint() - t0) / 1e6;
        }
        console.log(
          `#${k} ${passages ? 'P' : '-'} ${JSON.stringify(body.query).padEnd(36)} wall ${(wall / runs).toFixed(1).padStart(6)} ms, pg cpu ${((pgTicks * 1000) / CLK_TCK / runs).toFixed(1).padStart(5)} ms, node cpu ${(nodeUs / 1000 / runs).toFixed(1).padStart(5)} ms, ` +
            `${page.candidates} candidates, exhaustive ${page.exhaustive}, ${page.hits.length} hits, ${sent.length} statements`,
        );
        const customAfter = await customPlans();
        if (customAfter - customBefore >= runs) console.log(`   the main statement was planned anew on every run (custom plans)`);
        if (dumpDir) fs.writeFileSync(path.join(dumpDir, `q${k}${passages ? 'p' : ''}.json`), JSON.stringify(sent));
        if (explain) {
          const main = sent.find((s) => s.text.includes('serial_only'))!;
          const c = await knex.client.acquireConnection();
          try {
            await c.query(`set plan_cache_mode = force_generic_plan`);
            await c.query(`prepare profiled as ${main.text}`);
            const params = main.values.map((v) => (v === null ? 'null' : Array.isArray(v) ? pg.Client.prototype.escapeLiteral.call(c, `{${v.map((x) => JSON.stringify(x)).join(',')}}`) : pg.Client.prototype.escapeLiteral.call(c, String(v)))).join(', ');
            const r = await c.query(`explain (analyze, buffers) execute profiled${params ? `(${params})` : ''}`);
            console.log(r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n'));
            await c.query('deallocate profiled');
            await c.query(`set plan_cache_mode = auto`);
          } finally {
            await knex.client.releaseConnection(c);
          }
        }
      }
    }
  } finally {
    await knex.destroy();
    await handle.stop();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
