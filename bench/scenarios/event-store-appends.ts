import type { BenchScenario } from '../types';
import { benchDatabase } from '../support/postgres';
import { openDatabase } from '../../infra/postgres/database';
import { PostgresEventStore } from '../../infra/eventstore/postgres-event-store';
import { createLogger } from '../../src/util/logger';

/** Appends to the Postgres event store: single-event appends at 1, 16 and 32 writers, and 100-event batches. */
export const scenario: BenchScenario = {
  name: 'event-store-appends',
  async run(ctx) {
    const seconds = ctx.quick ? 2 : 8;
    const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await benchDatabase(), log: createLogger('warn'), poolMax: 40 });
    const store = new PostgresEventStore(db.knex);
    const data = { filingId: '6f1c3a52-3f0e-4f57-9d55-0b7d3d2c1a11', scheduleType: 'form', scheduleSeqNo: 3, context: 'Homeowners policy form HO 00 03, revised wildfire exclusion wording.' };
    const run = async (writers: number, batch: number, seconds: number, tag: string) => {
      const deadline = Date.now() + seconds * 1000;
      const cpu = process.cpuUsage();
      let appends = 0;
      await Promise.all(
        Array.from({ length: writers }, async (_, w) => {
          // Each writer works on its own streams, moving to a new one every 50 appends (realistic stream lengths).
          let stream = 0;
          let version = 0;
          while (Date.now() < deadline) {
            if (version >= 50 * batch) {
              stream++;
              version = 0;
            }
            const r = await store.append(`bench-${tag}-${writers}-${batch}-${w}-${stream}`, Array.from({ length: batch }, () => ({ type: 'BenchEvent', data })), version, { actor: 'bench' });
            version = r.nextVersion;
            appends++;
          }
        }),
      );
      const used = process.cpuUsage(cpu);
      // The bench process's CPU (every thread) per append: steadier than appends/s when other work shares
      // the cores; includes JIT and GC, so the first, slow run reads high.
      return { rate: appends / seconds, cpuMicros: (used.user + used.system) / appends };
    };
    // Unmeasured first: each writer count opens new pool connections (a SCRAM handshake each), and
    // that one-off cost is not what appends/s is about.
    const measure = async (writers: number, batch: number) => {
      await run(writers, batch, 0.5, 'warm');
      return run(writers, batch, seconds, 'run');
    };
    const rows = [];
    for (const writers of [1, 16, 32]) {
      const { rate, cpuMicros } = await measure(writers, 1);
      ctx.log(`${writers} writers: ${Math.round(rate)} appends/s, ${Math.round(cpuMicros)} µs node CPU per append`);
      rows.push({
        scenario: this.name,
        metric: `single-event appends, ${writers} writer${writers > 1 ? 's' : ''}`,
        value: rate,
        unit: 'appends/s',
        ...(writers >= 16 ? { goal: '>= 4000' } : {}),
        note: `${Math.round(cpuMicros)} µs node CPU per append`,
      });
    }
    const batched = (await measure(16, 100)).rate * 100;
    ctx.log(`batches of 100 at 16 writers: ${Math.round(batched)} events/s`);
    rows.push({ scenario: this.name, metric: 'events in 100-event appends, 16 writers', value: batched, unit: 'events/s', goal: '>= 20000' });
    await store.close();
    await db.close();
    return rows;
  },
};
