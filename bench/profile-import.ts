// Profiling aid (not a scenario): `node --cpu-prof -r tsx/cjs bench/profile-import.ts` with N (filings) and
// PAGES (text pages per filing) in the environment. Imports while the catalog-side projectors run, as the
// catalog-import scenario does, and prints where the wall time and each projector's apply time went.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../commands/import/import-cli';
import { loadConfig } from '../src/config';
import { createLogger } from '../src/logger';
import { openRuntime } from '../src/runtime';
import { writeGeneratedCatalog } from './catalog-generator';
import { SEARCH_PROJECTION } from '../projections/search/search-projector';

/** CPU seconds*100 (clock ticks) of the embedded postmaster and every backend, living or exited. */
function postgresCpu(dataDir: string): number | null {
  const pidFile = fs.readdirSync(dataDir, { recursive: true }).map(String).find((f) => f.endsWith('postmaster.pid'));
  if (!pidFile) return null;
  const root = Number(fs.readFileSync(path.join(dataDir, pidFile), 'utf8').split('\n')[0]);
  let ticks = 0;
  const stat = (pid: number) => fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const s = stat(root);
  ticks += Number(s[11]) + Number(s[12]) + Number(s[13]) + Number(s[14]);
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const f = stat(Number(pid));
      if (Number(f[1]) === root) ticks += Number(f[11]) + Number(f[12]);
    } catch {
      /* gone */
    }
  }
  return ticks;
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
    const cpu0 = process.cpuUsage();
    const mark0 = process.hrtime.bigint() / 1000n;
    const started = Date.now();
    let importing = true;
    const names = catalogSide.map((p) => p.name);
    const projecting = (async () => {
      while (importing) if (!(await rt.engine.catchUp(names))) await new Promise((res) => setTimeout(res, 20));
    })();
    let r;
    try {
      r = await runImport(rt, file, { wait: false });
    } finally {
      importing = false;
      await projecting;
    }
    const appended = (Date.now() - started) / 1000;
    await rt.engine.catchUp(names);
    const projected = (Date.now() - started) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const mark1 = process.hrtime.bigint() / 1000n;
    const pg1 = postgresCpu(path.join(dir, 'data'));
    console.log(`window ${mark0} ${mark1}; postgres cpu ${pg0 === null || pg1 === null ? 'unknown' : ((pg1 - pg0) / 100).toFixed(2) + ' s'}`);
    console.log(`imported ${r.imported} failed ${r.failed}: appended ${appended.toFixed(2)} s, projected ${projected.toFixed(2)} s => ${Math.round(r.imported / projected)} filings/s; node cpu user ${(cpu.user / 1e6).toFixed(2)} s sys ${(cpu.system / 1e6).toFixed(2)} s`);
    console.log('apply ms per projector:', Object.fromEntries([...applyMs].map(([k, v]) => [k, Math.round(v)])));
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
