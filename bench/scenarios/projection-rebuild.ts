import type { BenchScenario } from '../types';
import { benchDatabase, tmpDir } from '../support/postgres';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime } from '../../src/runtime';

/** `ifrs projections rebuild` speed: every registered projection rebuilt from a log of N events. */
export const scenario: BenchScenario = {
  name: 'projection-rebuild',
  async run(ctx) {
    const n = ctx.quick ? 20_000 : 200_000;
    const rt = await openRuntime(loadConfig({}, { databaseUrl: await benchDatabase(), dataDir: tmpDir('ifrs-bench-rb-') }), createLogger('warn'));
    const tenantId = 'bench-tenant';
    await rt.store.append(`tenant-${tenantId}`, [{ type: 'TenantCreated', data: { tenantId, name: 'Bench', datasets: ['naic'], sharing: false } }], 0, {});
    const batch = 500;
    for (let i = 0; i < n; i += batch) {
      // One stream per user, appended in bulk transactions so loading is not what is measured.
      await rt.db.knex.transaction(async (trx) => {
        for (let j = i; j < Math.min(n, i + batch); j++) {
          await (rt.store as import('../../infra/eventstore/postgres-event-store').PostgresEventStore).appendWith(
            trx,
            `user-u${j}`,
            [{ type: 'UserCreated', data: { userId: `u${j}`, tenantId, name: `User ${j}`, email: `u${j}@example.com` } }],
            0,
            {},
          );
        }
      });
    }
    ctx.log(`appended ${n} events`);
    const started = Date.now();
    const r = await rt.engine.rebuild();
    const seconds = (Date.now() - started) / 1000;
    await rt.close();
    ctx.log(`rebuilt ${r.rebuilt.join(', ')}: ${r.events} events in ${seconds.toFixed(1)} s`);
    return [{ scenario: this.name, metric: `rebuild of ${r.rebuilt.length} projection(s) over ${n.toLocaleString('en-US')} events`, value: r.events / seconds, unit: 'events/s', goal: '>= 10000' }];
  },
};
