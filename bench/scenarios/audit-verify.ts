import type { BenchScenario } from '../types';
import { benchDatabase } from '../support/postgres';
import { openDatabase } from '../../infra/postgres/database';
import { appendMany, type StreamAppend } from '../../infra/eventstore/postgres-bulk-append';
import { verifyChains } from '../../infra/eventstore/chain-audit';
import { createLogger } from '../../src/logger';

/**
 * Issue 23: `ifrs audit verify --all` throughput (verifyChains, what the command runs) over a log of
 * 1,000,000 events (quick: 100,000), chained by the bulk append: 100 events per stream, filing-sized data.
 */
export const scenario: BenchScenario = {
  name: 'audit-verify',
  async run(ctx) {
    const total = ctx.quick ? 100_000 : 1_000_000;
    const perStream = 100;
    const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await benchDatabase(), log: createLogger('warn'), poolMax: 4 });
    const knex = db.knex;
    const seeded = Date.now();
    const streamsPerTx = 100;
    for (let s = 0; s < total / perStream; s += streamsPerTx) {
      const appends: StreamAppend[] = [];
      for (let k = s; k < s + streamsPerTx; k++) {
        appends.push({
          streamId: `managedFiling-bench-${String(k).padStart(7, '0')}`,
          expected: 0,
          events: Array.from({ length: perStream }, (_, v) => ({
            event: { type: 'ManagedFilingUpdated', data: { filingId: `bench-${k}`, description: `Homeowners rate revision ${v}: wildfire surcharge, roof age factors.`, disposition: v % 2 ? 'pending' : null } },
            metadata: { actor: 'bench', userId: 'u_7f3a', requestId: `req-${k}-${v}`, tenantId: 't_1' },
          })),
        });
      }
      await knex.transaction((trx) => appendMany(trx, appends));
    }
    await knex.raw('vacuum analyze es_events');
    ctx.log(`seeded ${total} events in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);
    const cpu = process.cpuUsage();
    const started = process.hrtime.bigint();
    let events = 0;
    let broken = 0;
    await verifyChains(knex, { all: true }, (v) => void (v.verified ? 0 : broken++), (n) => void (events += n));
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const used = process.cpuUsage(cpu);
    const rate = events / seconds;
    ctx.log(`verify: ${events} events in ${seconds.toFixed(1)} s, ${Math.round(rate)} events/s, ${broken} broken`);
    await db.close();
    return [
      {
        scenario: this.name,
        metric: `audit verify --all over ${total.toLocaleString('en-US')} events`,
        value: rate,
        unit: 'events/s',
        goal: '>= 50000',
        note: `verifyChains (the command's loop, no progress bar) on one connection, ${total / perStream} streams of ${perStream}; ${seconds.toFixed(1)} s, node CPU ${((used.user + used.system) / 1e6).toFixed(1)} s; ${broken} broken streams (must be 0)`,
      },
    ];
  },
};
