// `node -r tsx/cjs bench/compare-serve.ts <other checkout> [rounds]`: GET /users/me and the catalog list served by
// another checkout's `ifrs serve` (before a change) and by this one's (after it), alternately on the same data
// set, in one run: req/s and API CPU per request of each, and their medians. Alternating rounds share whatever
// else the machine is doing, which a before-run and an after-run minutes apart do not.
import path from 'node:path';
import { catalogBenchData } from './support/catalog-data';
import { BIN, SERVE_LOG_LEVEL, load, startServerProcess } from './support/load';
import { cpuSeconds } from './support/process-cpu';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const other = process.argv[2];
  if (!other) throw new Error('usage: compare-serve.ts <other checkout> [rounds]');
  const rounds = Number(process.argv[3] ?? 3);
  const seconds = Number(process.env.BENCH_SECONDS ?? 3);
  const n = Number(process.env.BENCH_CATALOG_FILINGS ?? 20_000);
  const base = process.env.BENCH_DATA_DIR ?? path.resolve(__dirname, '../../bench-data');
  const data = await catalogBenchData(path.join(base, `catlist-${n}`), n, (m) => process.stderr.write(`${m}\n`));
  const headers = { Authorization: `Bearer ${data.apiKey}` };
  const targets = [
    ['GET /users/me', '/users/me'],
    ['GET /insurance/filings?limit=50', '/insurance/filings?limit=50'],
  ] as const;
  const sides = [
    ['before', path.resolve(other, 'bin/ifrs.js')],
    ['after', BIN],
  ] as const;
  const runs = new Map<string, { rps: number[]; cpuUs: number[] }>();
  for (let round = 0; round < rounds; round++) {
    for (const [side, bin] of round % 2 === 0 ? sides : [...sides].reverse()) {
      const serve = await startServerProcess(bin, ['serve', '--port', '0', '--role', 'api', '--data-dir', data.dataDir], { LOG_LEVEL: SERVE_LOG_LEVEL });
      try {
        for (const [name, p] of targets) {
          await load(serve.url + p, { connections: 16, seconds: 1, headers });
          const c0 = cpuSeconds(serve.child.pid!);
          const r = await load(serve.url + p, { connections: 16, seconds, headers });
          const c1 = cpuSeconds(serve.child.pid!);
          const cpuUs = ((c1.user + c1.sys - c0.user - c0.sys) * 1e6) / r.requests;
          const key = `${name} ${side}`;
          const m = runs.get(key) ?? { rps: [], cpuUs: [] };
          m.rps.push(r.rps);
          m.cpuUs.push(cpuUs);
          runs.set(key, m);
          process.stderr.write(`round ${round + 1} ${key}: ${Math.round(r.rps)} req/s, API ${Math.round(cpuUs)} us CPU/request, ${r.errors} errors, ${r.non2xx} non-2xx (${r.generator})\n`);
        }
      } finally {
        await serve.stop();
      }
    }
  }
  for (const [name] of targets) {
    const b = runs.get(`${name} before`)!;
    const a = runs.get(`${name} after`)!;
    process.stdout.write(
      `${name}: req/s median before ${Math.round(median(b.rps))}, after ${Math.round(median(a.rps))} (after/before ${(median(a.rps) / median(b.rps)).toFixed(3)}); ` +
        `API CPU/request median before ${Math.round(median(b.cpuUs))} us, after ${Math.round(median(a.cpuUs))} us (after/before ${(median(a.cpuUs) / median(b.cpuUs)).toFixed(3)})\n`,
    );
  }
}

main().catch((e) => {
  process.stderr.write(`${(e as Error).stack}\n`);
  process.exit(1);
});
