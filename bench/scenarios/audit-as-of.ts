import type { BenchScenario } from '../types';
import { benchDatabase, tmpDir } from '../support/postgres';
import { BIN, startServerProcess } from '../support/load';
import { seedCommandsWorkspace } from '../support/working-filings-seed';
import { createLogger } from '../../src/logger';

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

/**
 * Issue 23: `GET /managed-filings/{id}?asOf=` on a filing with 10,000 events (quick: 2,000) against today's
 * detail read of the same filing, through the served API, in one run: the two requests alternate one at a
 * time on one keep-alive client, so both see the same machine. asOf is the moment after the last event, so
 * the answer folds the whole stream (the worst case); atVersion at the middle folds half of it.
 */
export const scenario: BenchScenario = {
  name: 'audit-as-of',
  async run(ctx) {
    const events = ctx.quick ? 2_000 : 10_000;
    const rounds = ctx.quick ? 40 : 150;
    const url = await benchDatabase();
    const dataDir = tmpDir('ifrs-bench-asof-');
    const { apiKey, createBody } = await seedCommandsWorkspace(url, dataDir, createLogger('warn'));
    const serve = await startServerProcess(BIN, ['serve', '--port', '0', '--data-dir', dataDir], { DATABASE_URL: url, LOG_LEVEL: 'warn' });
    try {
      const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
      const created = await fetch(`${serve.url}/managed-filings`, { method: 'POST', headers, body: createBody });
      if (created.status !== 201) throw new Error(`create: ${created.status} ${await created.text()}`);
      const { id } = (await created.json()) as { id: string };
      const seeded = Date.now();
      // Four writers at once: PATCHes of one filing serialise in the command path (re-decided on conflict).
      let next = 1;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < events) {
            const i = next++;
            const r = await fetch(`${serve.url}/managed-filings/${id}`, { method: 'PATCH', headers, body: JSON.stringify({ description: `Homeowners rate revision, draft ${i}: wildfire surcharge and roof age factors.` }) });
            if (r.status !== 200) throw new Error(`patch ${i}: ${r.status} ${await r.text()}`);
            await r.arrayBuffer();
          }
        }),
      );
      const head = (await (await fetch(`${serve.url}/managed-filings/${id}?atVersion=2147483647`, { headers })).json()) as { version: number };
      ctx.log(`filing with ${head.version} events in ${((Date.now() - seeded) / 1000).toFixed(0)} s`);
      const asOf = new Date(Date.now() + 1000).toISOString();
      const targets = {
        detail: `${serve.url}/managed-filings/${id}`,
        asOf: `${serve.url}/managed-filings/${id}?asOf=${encodeURIComponent(asOf)}`,
        atVersion: `${serve.url}/managed-filings/${id}?atVersion=${Math.floor(head.version / 2)}`,
      };
      const times: Record<keyof typeof targets, number[]> = { detail: [], asOf: [], atVersion: [] };
      for (let r = -3; r < rounds; r++) {
        for (const k of Object.keys(targets) as (keyof typeof targets)[]) {
          const t = process.hrtime.bigint();
          const res = await fetch(targets[k], { headers });
          await res.arrayBuffer();
          if (res.status !== 200) throw new Error(`${k}: ${res.status}`);
          if (r >= 0) times[k].push(Number(process.hrtime.bigint() - t) / 1e6);
        }
      }
      const d = p50(times.detail);
      const a = p50(times.asOf);
      const v = p50(times.atVersion);
      ctx.log(`p50 detail ${d.toFixed(2)} ms, asOf ${a.toFixed(2)} ms (${(a / d).toFixed(1)}x), atVersion ${v.toFixed(2)} ms`);
      const note = `${head.version} events (1 create + PATCHes), ${rounds} rounds of detail, asOf, atVersion alternating one at a time on one client; p50 detail ${d.toFixed(2)} ms, asOf ${a.toFixed(2)} ms, atVersion=${Math.floor(head.version / 2)} ${v.toFixed(2)} ms`;
      return [
        { scenario: this.name, metric: `asOf p50 over the detail's p50, ${head.version.toLocaleString('en-US')} events`, value: a / d, unit: 'x', goal: '<= 5', note },
        { scenario: this.name, metric: 'asOf p50', value: a, unit: 'ms' },
        { scenario: this.name, metric: 'detail p50', value: d, unit: 'ms' },
      ];
    } finally {
      await serve.stop();
    }
  },
};
