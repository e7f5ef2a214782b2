// Profiling aid (not a scenario): `npx tsx bench/profile-commands.ts` runs the working-filings-commands
// load (POST /managed-filings, then item PATCH, 16 connections) against a server process on an own embedded
// Postgres with pg_stat_statements, and prints per command: the API process's CPU, Postgres's CPU
// (postmaster and backends), transactions, and the statements with their calls and execution time.
// PROF=1 also writes a CPU profile of the server per phase (into PROF_DIR, default /tmp/ifrs-prof-cmds).
// SECONDS (default 5) per phase; PHASES=post,patch by default; RATE=n holds the load at n commands/s.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { ensureEmbeddedPostgres } from '../infra/postgres/embedded';
import { BIN } from './support/load';
import { seedCommandsWorkspace } from './support/working-filings-seed';
import { cpuSeconds, postgresCpuByKind, postmasterCpuSeconds } from './support/process-cpu';
import { spawn } from 'node:child_process';
import { createLogger } from '../src/util/logger';
import { upload } from '../test/support/working-filings';

/** CPU ticks of one process (itself only). */
function processCpu(pid: number): number {
  const c = cpuSeconds(pid);
  return (c.user + c.sys) * 100;
}

/** CPU ticks of the postmaster, its exited children and every living backend. */
function postgresCpu(root: number): number {
  return postmasterCpuSeconds(root) * 100;
}

const TICK_MS = 10;

/** The server with node flags (NODE_OPTIONS refuses --cpu-prof). */
function startServer(flags: string[], args: string[], env: Record<string, string>): Promise<{ url: string; child: ReturnType<typeof spawn>; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...flags, BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ url: m[1], child, stop: () => new Promise<void>((r) => { child.once('exit', () => r()); child.kill('SIGTERM'); }) });
    });
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${err.slice(-500)}`)));
  });
}

async function main() {
  const seconds = Number(process.env.SECONDS ?? 5);
  const phases = (process.env.PHASES ?? 'post,patch').split(',');
  const profDir = process.env.PROF_DIR ?? '/tmp/ifrs-prof-cmds';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-prof-cmds-'));
  fs.chmodSync(dir, 0o755);
  const log = createLogger('warn');
  let pgh = await ensureEmbeddedPostgres(dir, log);
  const admin0 = new pg.Client({ connectionString: pgh.connectionString });
  await admin0.connect();
  await admin0.query(`alter system set shared_preload_libraries = 'pg_stat_statements'`);
  await admin0.query(`alter system set pg_stat_statements.track = 'all'`);
  await admin0.query(`alter system set pg_stat_statements.track_planning = on`);
  // COMMIT_DELAY=µs (and COMMIT_SIBLINGS): group commit knobs, to try on the synchronous appends.
  if (process.env.COMMIT_DELAY) await admin0.query(`alter system set commit_delay = ${Number(process.env.COMMIT_DELAY)}`);
  if (process.env.COMMIT_SIBLINGS) await admin0.query(`alter system set commit_siblings = ${Number(process.env.COMMIT_SIBLINGS)}`);
  await admin0.end();
  await pgh.stop();
  pgh = await ensureEmbeddedPostgres(dir, log);
  const root = Number(fs.readFileSync(path.join(dir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
  const base = new pg.Client({ connectionString: pgh.connectionString });
  await base.connect();
  await base.query('create database prof');
  await base.end();
  const u = new URL(pgh.connectionString);
  u.pathname = '/prof';
  const url = u.toString();
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query('create extension if not exists pg_stat_statements');

  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-prof-cmds-data-'));
  const { apiKey, scope, createBody: body } = await seedCommandsWorkspace(url, dataDir, log);
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };

  for (const phase of phases) {
    const env: Record<string, string> = { DATABASE_URL: url, LOG_LEVEL: 'warn' };
    const flags = process.env.PROF ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`, `--cpu-prof-name=${phase}-${Date.now()}.cpuprofile`] : [];
    const serve = await startServer(flags, ['serve', '--port', '0', '--data-dir', dataDir], env);
    const serverPid = serve.child.pid!;
    const requests: autocannon.Request[] = [];
    let items: string[] = [];
    if (phase === 'post') {
      await autocannon({ url: `${serve.url}/managed-filings`, connections: 16, duration: 1, headers, method: 'POST', body });
    } else {
      const { artifact } = await upload(serve.url, apiKey, scope, 'Rate manual page 12: territory relativities.', { name: 'rates.txt' });
      items = [];
      for (let i = 0; i < 16; i++) {
        const filing = (await (await fetch(`${serve.url}/managed-filings`, { method: 'POST', headers, body })).json()) as { id: string };
        const r = await fetch(`${serve.url}/managed-filings/${filing.id}/items`, { method: 'POST', headers, body: JSON.stringify({ artifactId: artifact.id, scheduleType: 'rate', scheduleSeqNo: i + 1 }) });
        items.push(`${filing.id}/items/${((await r.json()) as { id: string }).id}`);
      }
    }
    let n = 0;
    const prefix = new URL(serve.url).pathname;
    const opts =
      phase === 'post'
        ? { url: `${serve.url}/managed-filings`, connections: 16, duration: seconds, headers, method: 'POST' as const, body }
        : {
            url: serve.url,
            connections: 16,
            duration: seconds,
            requests: [{ method: 'PATCH' as const, headers, setupRequest: (req: any) => ({ ...req, path: `${prefix}/managed-filings/${items[n++ % items.length]}`, body: JSON.stringify({ context: `Revision ${n}` }) }) }],
          };
    void requests;
    if (phase === 'patch') await autocannon({ ...opts, duration: 1 } as autocannon.Options);
    await admin.query('select pg_stat_statements_reset()');
    const x0 = (await admin.query(`select xact_commit::bigint as c from pg_stat_database where datname = 'prof'`)).rows[0].c;
    const wal0 = (await admin.query(`select wal_records::bigint as r, wal_bytes::bigint as b, wal_write::bigint as w, wal_sync::bigint as s from pg_stat_wal`)).rows[0];
    const node0 = processCpu(serverPid);
    const split0 = cpuSeconds(serverPid);
    const pg0 = postgresCpu(root);
    const kinds0 = postgresCpuByKind(root);
    const self0 = process.cpuUsage();
    const t0 = process.hrtime.bigint() / 1000n;
    // RATE: a fixed overall rate, so that per-command costs of two versions compare at the same throughput
    // (fixed costs, such as idle projectors' polls, spread over however many commands a run manages).
    const rate = process.env.RATE ? { overallRate: Number(process.env.RATE) } : {};
    const r = await autocannon({ ...opts, ...rate } as autocannon.Options);
    const t1 = process.hrtime.bigint() / 1000n;
    const node1 = processCpu(serverPid);
    const split1 = cpuSeconds(serverPid);
    const pg1 = postgresCpu(root);
    const kinds1 = postgresCpuByKind(root);
    const self1 = process.cpuUsage(self0);
    const x1 = (await admin.query(`select xact_commit::bigint as c from pg_stat_database where datname = 'prof'`)).rows[0].c;
    const wal1 = (await admin.query(`select wal_records::bigint as r, wal_bytes::bigint as b, wal_write::bigint as w, wal_sync::bigint as s from pg_stat_wal`)).rows[0];
    const cmds = r.requests.total;
    console.log(`\n== ${phase}: ${cmds} commands, ${Math.round(r.requests.average)}/s mean ${r.latency.mean.toFixed(2)} p50 ${r.latency.p50} p99 ${r.latency.p99} ms, non-2xx ${r.non2xx}; window ${t0}-${t1}; load ${os.loadavg().map((v) => v.toFixed(1)).join(' ')}`);
    console.log(
      `per command: API ${(((node1 - node0) * TICK_MS) / cmds).toFixed(2)} ms (system ${(((split1.sys - split0.sys) * 1000) / cmds).toFixed(2)}), Postgres ${(((pg1 - pg0) * TICK_MS) / cmds).toFixed(2)} ms, load generator ${((self1.user + self1.system) / 1000 / cmds).toFixed(2)} ms, transactions ${((Number(x1) - Number(x0)) / cmds).toFixed(2)}, ` +
        `WAL records ${((Number(wal1.r) - Number(wal0.r)) / cmds).toFixed(1)}, bytes ${Math.round((Number(wal1.b) - Number(wal0.b)) / cmds)}, writes ${((Number(wal1.w) - Number(wal0.w)) / cmds).toFixed(2)}, syncs ${((Number(wal1.s) - Number(wal0.s)) / cmds).toFixed(2)}`,
    );
    console.log(
      `Postgres CPU by process kind, ms per command: ${[...kinds1]
        .map(([k, v]) => [k, ((v - (kinds0.get(k) ?? 0)) * TICK_MS) / cmds] as const)
        .filter(([, v]) => v > 0.005)
        .sort((a, b) => b[1] - a[1])
        .map(([k, v]) => `${k} ${v.toFixed(3)}`)
        .join(', ')}`,
    );
    const st = await admin.query(
      `select calls, total_exec_time, total_plan_time, rows, regexp_replace(query, '\\s+', ' ', 'g') as q from pg_stat_statements
       where dbid = (select oid from pg_database where datname = 'prof') order by total_exec_time + total_plan_time desc limit 25`,
    );
    let sumCalls = 0;
    let sumMs = 0;
    for (const s of st.rows) {
      sumCalls += Number(s.calls);
      sumMs += s.total_exec_time + s.total_plan_time;
    }
    console.log(`statements (top 25, exec+plan ms): ${(sumCalls / cmds).toFixed(2)} per command, exec+plan ${(sumMs / cmds).toFixed(3)} ms per command`);
    for (const s of st.rows)
      console.log(
        `  ${(Number(s.calls) / cmds).toFixed(3)}/cmd ${((s.total_exec_time + s.total_plan_time) / cmds).toFixed(3)} ms/cmd (plan ${(s.total_plan_time / cmds).toFixed(3)}) rows/call ${(Number(s.rows) / Number(s.calls)).toFixed(1)}  ${String(s.q).slice(0, 150)}`,
      );
    await serve.stop();
  }
  await admin.end();
  await pgh.stop();
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(dataDir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
