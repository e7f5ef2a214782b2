// Profiling aid (not a scenario): `node --cpu-prof -r tsx/cjs bench/profile-import.ts` with N (filings) and
// PAGES (text pages per filing) in the environment. Imports while the catalog-side projectors run, as the
// catalog-import scenario does, and prints where the wall time and each projector's apply time went.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../src/cli/import/import-cli';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/util/logger';
import { openRuntime } from '../src/runtime';
import { writeGeneratedCatalog } from './catalog-generator';
import { SEARCH_PROJECTION } from '../src/read-models/search';
import { postgresCpuByKind, postmasterCpuSeconds } from './support/process-cpu';

function postmasterPid(dataDir: string): number | null {
  const pidFile = fs.readdirSync(dataDir, { recursive: true }).map(String).find((f) => f.endsWith('postmaster.pid'));
  return pidFile ? Number(fs.readFileSync(path.join(dataDir, pidFile), 'utf8').split('\n')[0]) : null;
}

/** CPU seconds*100 (clock ticks) of the embedded postmaster and every backend, living or exited. */
function postgresCpu(dataDir: string): number | null {
  const pid = postmasterPid(dataDir);
  return pid === null ? null : postmasterCpuSeconds(pid) * 100;
}

/** Postgres CPU seconds by process kind (living processes: the pool's backends, checkpointer, WAL writer...). */
function postgresCpuKinds(dataDir: string): Record<string, number> {
  const pid = postmasterPid(dataDir);
  return pid === null ? {} : Object.fromEntries([...postgresCpuByKind(pid)].map(([k, ticks]) => [k, ticks / 100]));
}

/** With BYTES set: parameter bytes sent per statement shape (what the socket writes are made of). */
const sent = new Map<string, { calls: number; bytes: number }>();
if (process.env.BYTES) {
  const pg = require('pg') as { Client: { prototype: { query: (...a: unknown[]) => unknown } } };
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    const cfg = args[0] as { text?: string; values?: unknown[] } | string;
    const text = typeof cfg === 'string' ? cfg : (cfg?.text ?? '');
    const values = (typeof cfg === 'object' && cfg?.values) || (Array.isArray(args[1]) ? (args[1] as unknown[]) : []);
    let bytes = 0;
    for (const v of values) bytes += Buffer.isBuffer(v) ? v.length : typeof v === 'string' ? Buffer.byteLength(v) : Array.isArray(v) ? JSON.stringify(v).length : String(v).length;
    const key = text.replace(/\s+/g, ' ').trim().slice(0, 60);
    const e = sent.get(key) ?? { calls: 0, bytes: 0 };
    e.calls++;
    e.bytes += bytes + text.length;
    sent.set(key, e);
    return query.apply(this, args);
  };
}

function startSampler(knex: import('knex').Knex, dataDir: string): { stop(): void } {
  let last: { t: number; pos: number; lsn: string; node: number; pg: number } | null = null;
  const sample = async () => {
    const r = (await knex.raw(`select coalesce(max(global_position), 0)::bigint as pos, pg_current_wal_lsn()::text as lsn from es_events`)).rows[0];
    const c = process.cpuUsage();
    const now = { t: Date.now(), pos: Number(r.pos), lsn: r.lsn as string, node: (c.user + c.system) / 1e6, pg: (postgresCpu(dataDir) ?? 0) / 100 };
    if (last) {
      const wal = (await knex.raw(`select pg_wal_lsn_diff(?, ?)::bigint as b`, [now.lsn, last.lsn])).rows[0].b;
      const ev = now.pos - last.pos;
      console.log(`[stats] head ${now.pos} +${ev} ev in ${((now.t - last.t) / 1000).toFixed(1)} s (${Math.round(ev / ((now.t - last.t) / 1000))}/s); wal ${(Number(wal) / 1e6).toFixed(0)} MB (${ev ? Math.round(Number(wal) / ev) : 0} B/ev); node ${(now.node - last.node).toFixed(1)} s, pg ${(now.pg - last.pg).toFixed(1)} s cpu (${ev ? Math.round(((now.node - last.node + now.pg - last.pg) * 1e6) / ev) : 0} us/ev); load ${os.loadavg()[0].toFixed(2)}`);
    }
    last = now;
  };
  const timer = setInterval(() => void sample().catch(() => undefined), 10_000);
  void sample();
  return { stop: () => clearInterval(timer) };
}

async function printStoreStats(knex: import('knex').Knex) {
  const q = async (sql: string) => console.table((await knex.raw(sql)).rows);
  await q(`select * from pg_stat_checkpointer`);
  await q(`select buffers_clean, maxwritten_clean, buffers_alloc from pg_stat_bgwriter`);
  await q(`select backend_type, object, context, writes, extends, evictions, hits, reads, fsyncs from pg_stat_io where writes > 0 or evictions > 0 or reads > 0 order by writes desc nulls last limit 12`);
  await q(`select wal_records, wal_fpi, pg_size_pretty(wal_bytes) as wal, wal_buffers_full, wal_write, wal_sync from pg_stat_wal`);
  await q(`select relname, indexrelname, idx_blks_read, idx_blks_hit, round(100.0 * idx_blks_hit / greatest(idx_blks_hit + idx_blks_read, 1), 1) as hit_pct, pg_size_pretty(pg_relation_size(indexrelid)) as size from pg_statio_user_indexes order by idx_blks_read desc limit 15`);
  await q(`select relname, heap_blks_read, heap_blks_hit, pg_size_pretty(pg_relation_size(relid)) as size, pg_size_pretty(pg_total_relation_size(relid)) as total from pg_statio_user_tables order by heap_blks_read desc limit 10`);
}

async function main() {
  const n = Number(process.env.N ?? 20000);
  const pages = Number(process.env.PAGES ?? 3);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-prof-import-'));
  fs.chmodSync(dir, 0o755);
  const file = path.join(dir, 'catalog.jsonl');
  await writeGeneratedCatalog(file, n, { pages });
  const open = () => openRuntime(loadConfig(process.env, { dataDir: path.join(dir, 'data') }), createLogger('warn'), { poolMax: 10 });
  if (process.env.PGSS) {
    // pg_stat_statements needs a restart of the embedded postgres to load.
    const first = await open();
    await first.db.knex.raw(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
    await first.db.knex.raw(`alter system set pg_stat_statements.track_utility = off`);
    await first.close();
  }
  const rt = await open();
  if (process.env.PGSS) await rt.db.knex.raw(`create extension if not exists pg_stat_statements; select pg_stat_statements_reset()`);
  const applyMs = new Map<string, number>();
  const catalogSide = rt.engine.projectors.filter((p) => p.name !== SEARCH_PROJECTION);
  for (const p of catalogSide) {
    const apply = p.apply.bind(p);
    p.apply = async (ctx, events) => {
      const t0 = performance.now();
      try {
        await apply(ctx, events);
      } finally {
        applyMs.set(p.name, (applyMs.get(p.name) ?? 0) + performance.now() - t0);
      }
    };
  }
  try {
    const pg0 = postgresCpu(path.join(dir, 'data'));
    const kinds0 = postgresCpuKinds(path.join(dir, 'data'));
    const cpu0 = process.cpuUsage();
    const mark0 = process.hrtime.bigint() / 1000n;
    const started = Date.now();
    let importing = true;
    const names = catalogSide.map((p) => p.name);
    // AFTER=1: append first, project after, to split the CPU of the two phases.
    const after = !!process.env.AFTER;
    // STATS=1: every 10 s, the log head, WAL written and the CPU of node and Postgres, to see how the
    // rate and the cost per event change as the store grows.
    const sampler = process.env.STATS ? startSampler(rt.db.knex, path.join(dir, 'data')) : null;
    const projecting = (async () => {
      while (importing && !after && !process.env.WAIT) if (!(await rt.engine.catchUp(names))) await new Promise((res) => setTimeout(res, 20));
    })();
    let r;
    try {
      // WAIT=1: `ifrs import --wait` itself (every projection, the search index too, in background runners).
      r = await runImport(rt, file, { wait: !!process.env.WAIT, concurrency: process.env.CONC ? Number(process.env.CONC) : undefined });
    } finally {
      importing = false;
      await projecting;
    }
    const appended = (Date.now() - started) / 1000;
    if (after) {
      const c = process.cpuUsage(cpu0);
      const pg = postgresCpu(path.join(dir, 'data'));
      console.log(`appends alone: ${appended.toFixed(2)} s; node cpu ${((c.user + c.system) / 1e6).toFixed(2)} s; postgres cpu ${pg === null || pg0 === null ? '?' : ((pg - pg0) / 100).toFixed(2)} s`);
    }
    await rt.engine.catchUp(names);
    const projected = (Date.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const mark1 = process.hrtime.bigint() / 1000n;
    const pg1 = postgresCpu(path.join(dir, 'data'));
    console.log(`window ${mark0} ${mark1}; postgres cpu ${pg0 === null || pg1 === null ? 'unknown' : ((pg1 - pg0) / 100).toFixed(2) + ' s'}`);
    console.log(`imported ${r.imported} failed ${r.failed}: appended ${appended.toFixed(2)} s, projected ${projected.toFixed(2)} s => ${Math.round(r.imported / projected)} filings/s; node cpu user ${(cpu.user / 1e6).toFixed(2)} s sys ${(cpu.system / 1e6).toFixed(2)} s`);
    const kinds1 = postgresCpuKinds(path.join(dir, 'data'));
    console.log(`us per filing: node ${Math.round(((cpu.user + cpu.system) / r.imported))}, postgres ${pg0 === null || pg1 === null ? '?' : Math.round(((pg1 - pg0) * 1e4) / r.imported)}; postgres cpu s by kind:`, Object.fromEntries(Object.entries(kinds1).map(([k, v]) => [k, Number((v - (kinds0[k] ?? 0)).toFixed(1))])));
    console.log('apply ms per projector:', Object.fromEntries([...applyMs].map(([k, v]) => [k, Math.round(v)])));
    if (process.env.EXPLAIN) {
      const ids = Array.from({ length: 400 }, () => `catalogFiling-${crypto.randomUUID()}`);
      for (const sql of [
        `explain (analyze, buffers) select stream_id, version, type, data from es_events where stream_id = any(?) order by stream_id, version`,
        `explain (analyze, buffers) select e.stream_id, e.version, e.type, e.data from unnest(cast(? as text[])) as s(stream_id) cross join lateral (select stream_id, version, type, data from es_events where stream_id = s.stream_id order by version offset 0) e`,
      ])
        console.log((await rt.db.knex.raw(sql, [ids])).rows.map((r: Record<string, string>) => r['QUERY PLAN'].slice(0, 160)).join('\n'));
    }
    if (sampler) {
      sampler.stop();
      await printStoreStats(rt.db.knex);
    }
    if (process.env.BYTES) console.table([...sent].sort((a, b) => b[1].bytes - a[1].bytes).slice(0, 15).map(([q, e]) => ({ q, calls: e.calls, MB: (e.bytes / 1e6).toFixed(1) })));
    if (process.env.PGSS) {
      const top = await rt.db.knex.raw(`select calls, round(total_exec_time) as ms, round((total_exec_time / greatest(calls, 1))::numeric, 2) as per_call, rows, left(regexp_replace(query, '\\s+', ' ', 'g'), 150) as q from pg_stat_statements order by total_exec_time desc limit 25`);
      console.table(top.rows);
    }
    console.log(`load: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  } finally {
    await rt.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
