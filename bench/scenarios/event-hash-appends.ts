import type { BenchScenario } from '../types';
import { benchDatabase } from '../support/postgres';
import { UnhashedAppender } from '../support/unhashed-append';
import { postmasterCpuSeconds } from '../support/process-cpu';
import fs from 'node:fs';
import path from 'node:path';
import { openDatabase } from '../../infra/postgres/database';
import { PostgresEventStore } from '../../infra/eventstore/postgres-event-store';
import type { AppendResult, EventMetadata, NewEvent } from '../../src/domain/events';
import { createLogger } from '../../src/logger';

type Append = (streamId: string, events: NewEvent[], expectedVersion: number, metadata: EventMetadata) => Promise<AppendResult>;

/**
 * Issue 23's "append rate with hashing against without, in one run": the store's append (hash chain in
 * metadata) against the append as it was before the chain (bench/support/unhashed-append.ts), on the same
 * database and pool, run interleaved A B B A per shape so drift in what else the machine runs cancels;
 * the ratio is the hashed runs' appends over the unhashed runs'.
 */
export const scenario: BenchScenario = {
  name: 'event-hash-appends',
  async run(ctx) {
    const seconds = ctx.quick ? 2 : 3;
    const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await benchDatabase(), log: createLogger('warn'), poolMax: 40 });
    const store = new PostgresEventStore(db.knex);
    const unhashed = new UnhashedAppender(db.knex);
    const dataDir = (await db.knex.raw<{ rows: { setting: string }[] }>("select setting from pg_settings where name = 'data_directory'")).rows[0].setting;
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    const sides: Record<'hashed' | 'unhashed', Append> = {
      hashed: (s, e, v, m) => store.append(s, e, v, m),
      unhashed: (s, e, v, m) => unhashed.append(s, e, v, m),
    };
    const data = { filingId: '6f1c3a52-3f0e-4f57-9d55-0b7d3d2c1a11', scheduleType: 'form', scheduleSeqNo: 3, context: 'Homeowners policy form HO 00 03, revised wildfire exclusion wording.' };
    const metadata = { actor: 'bench', userId: 'u_7f3a', requestId: 'req-6c1f0d2e', tenantId: 't_1' };
    const walPosition = async () => (await db.knex.raw<{ rows: { l: string }[] }>('select pg_current_wal_insert_lsn()::text as l')).rows[0].l;
    let runNo = 0;
    const run = async (append: Append, writers: number, batch: number, secs: number) => {
      const tag = `r${runNo++}`;
      const deadline = Date.now() + secs * 1000;
      const cpu = process.cpuUsage();
      const pgCpu = postmasterCpuSeconds(postmaster);
      const wal0 = await walPosition();
      let appends = 0;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          let stream = 0;
          let version = 0;
          while (Date.now() < deadline) {
            if (version >= 50 * batch) {
              stream++;
              version = 0;
            }
            const r = await append(`benchhash-${tag}-${w}-${stream}`, Array.from({ length: batch }, () => ({ type: 'BenchEvent', data })), version, metadata);
            version = r.nextVersion;
            appends++;
          }
        }),
      );
      const used = process.cpuUsage(cpu);
      const pgMicros = ((postmasterCpuSeconds(postmaster) - pgCpu) * 1e6) / appends;
      const walBytes = Number((await db.knex.raw<{ rows: { d: string }[] }>('select pg_wal_lsn_diff(pg_current_wal_insert_lsn(), ?) as d', [wal0])).rows[0].d) / (appends * batch);
      return { appends, rate: appends / secs, cpuMicros: (used.user + used.system) / appends, pgMicros, walBytes };
    };
    const rows = [];
    // Runs on this shared machine swing severalfold within a minute (other work, the disk's flushes): short
    // slices in repeated A B B A cycles, and the CPU both servers spend per event beside the rate.
    const cycles = ctx.quick ? 1 : 3;
    for (const [writers, batch] of [[16, 1], [1, 1], [16, 100]] as const) {
      await run(sides.hashed, writers, batch, 0.5);
      await run(sides.unhashed, writers, batch, 0.5);
      type Run = { rate: number; cpuMicros: number; pgMicros: number; walBytes: number };
      const got = { hashed: [] as Run[], unhashed: [] as Run[] };
      for (let c = 0; c < cycles; c++) for (const side of ['unhashed', 'hashed', 'hashed', 'unhashed'] as const) got[side].push(await run(sides[side], writers, batch, seconds));
      const mean = (side: 'hashed' | 'unhashed', k: keyof Run) => got[side].reduce((a, r) => a + r[k], 0) / got[side].length;
      const ratio = (mean('hashed', 'rate') / mean('unhashed', 'rate')) * 100;
      const cpuPerAppend = (side: 'hashed' | 'unhashed') => mean(side, 'cpuMicros') + mean(side, 'pgMicros');
      const cpuRatio = (cpuPerAppend('unhashed') / cpuPerAppend('hashed')) * 100;
      const shape = `${batch === 1 ? 'single-event' : `${batch}-event`} appends, ${writers} writer${writers > 1 ? 's' : ''}`;
      const raw = (side: 'hashed' | 'unhashed') => got[side].map((r) => Math.round(r.rate * batch)).join(', ');
      const note = `${cycles} x A B B A in one process on one database, ${seconds} s each (A = unhashed: the append before the chain, bench/support/unhashed-append.ts; B = the store's hashed append); events/s unhashed ${raw('unhashed')}, hashed ${raw('hashed')}; CPU per append unhashed vs hashed: node ${Math.round(mean('unhashed', 'cpuMicros'))} vs ${Math.round(mean('hashed', 'cpuMicros'))} µs, Postgres ${Math.round(mean('unhashed', 'pgMicros'))} vs ${Math.round(mean('hashed', 'pgMicros'))} µs; WAL per event ${Math.round(mean('unhashed', 'walBytes'))} vs ${Math.round(mean('hashed', 'walBytes'))} bytes`;
      ctx.log(`${shape}: hashed ${ratio.toFixed(1)}% of the unhashed rate, ${cpuRatio.toFixed(1)}% by CPU per event (${note})`);
      rows.push({ scenario: this.name, metric: `hashed append rate against unhashed, ${shape}`, value: ratio, unit: '%', goal: '>= 90', note });
      rows.push({ scenario: this.name, metric: `hashed against unhashed by CPU per event (node + Postgres), ${shape}`, value: cpuRatio, unit: '%', note: 'unhashed CPU per event over hashed: the rate a CPU-bound machine would reach' });
    }
    await store.close();
    await db.close();
    return rows;
  },
};
