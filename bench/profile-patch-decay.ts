/**
 * Item PATCHes at 16 connections for a minute, in 5 s windows, with what Postgres says about the rows they
 * update (dead tuples, HOT updates, the oldest open transaction): a tool for finding why PATCH throughput
 * decays over a long run. `npx tsx bench/profile-patch-decay.ts [windows]`.
 */
import pg from 'pg';
import { benchDatabase, tmpDir } from './support/postgres';
import { BIN, loadRotating, startServerProcess } from './support/load';
import { seedCommandsWorkspace, seedItemPatches } from './support/working-filings-seed';
import { createLogger } from '../src/util/logger';

async function main() {
  const windows = Number(process.argv[2] ?? 12);
  const url = await benchDatabase();
  const dataDir = tmpDir('ifrs-bench-decay-');
  const { apiKey, scope, createBody: body } = await seedCommandsWorkspace(url, dataDir, createLogger('warn'));
  const serve = await startServerProcess(BIN, ['serve', '--port', '0', '--data-dir', dataDir], { DATABASE_URL: url, LOG_LEVEL: 'warn' });
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  const patches = await seedItemPatches(serve.url, apiKey, scope, body);
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  for (let w = 0; w < windows; w++) {
    // What the database's sessions wait on, sampled every 200 ms while the window runs.
    const waits = new Map<string, number>();
    const sampler = setInterval(() => {
      void c
        .query(`select state, coalesce(wait_event_type, '-') || ':' || coalesce(wait_event, '-') as w, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) as q
          from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and state <> 'idle'`)
        .then((res) => {
          for (const a of res.rows) waits.set(`${a.state} ${a.w} ${a.q}`, (waits.get(`${a.state} ${a.w} ${a.q}`) ?? 0) + 1);
        })
        .catch(() => undefined);
    }, 200);
    const r = await loadRotating(serve.url, patches, { connections: 16, seconds: 5, headers, method: 'PATCH' });
    clearInterval(sampler);
    const stats = await c.query(`select relname, n_live_tup, n_dead_tup, n_tup_upd, n_tup_hot_upd, autovacuum_count, pg_relation_size(relid) as bytes
      from pg_stat_user_tables where n_tup_upd > 1000 order by n_tup_upd desc limit 6`);
    const old = await c.query(`select max(now() - xact_start) as oldest, count(*) filter (where state <> 'idle') as active from pg_stat_activity where datname = current_database()`);
    console.log(`window ${w + 1}: ${Math.round(r.rps)}/s p99 ${r.p99} ms; oldest xact ${JSON.stringify(old.rows[0].oldest)}, active ${old.rows[0].active}`);
    for (const [k, n] of [...waits].sort((a, b) => b[1] - a[1]).slice(0, 6)) console.log(`  ${n}x ${k}`);
    for (const s of stats.rows) console.log(`  ${s.relname}: live ${s.n_live_tup} dead ${s.n_dead_tup} upd ${s.n_tup_upd} hot ${s.n_tup_hot_upd} autovac ${s.autovacuum_count} ${Math.round(s.bytes / 1024)} KB`);
  }
  await c.end();
  await serve.stop();
  process.exit(0);
}
void main();
