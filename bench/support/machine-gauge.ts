import { spawnSync } from 'node:child_process';

/**
 * A fixed CPU-bound workload (integer arithmetic, then JSON of 200,000 small objects), timed in a fresh node
 * process so that the bench's own JIT state and heap do not colour it. About 350 ms on the bench machine when
 * it is quick.
 */
const WORKLOAD = `const t = process.hrtime.bigint(); let x = 0;
for (let i = 0; i < 3e7; i++) x = (x * 31 + i) % 1000003;
JSON.parse(JSON.stringify(Array.from({ length: 2e5 }, (_, i) => ({ i, s: 'abc' + i }))));
process.stdout.write(String(Number(process.hrtime.bigint() - t) / 1e6) + ' ' + x);`;

/**
 * The machine's speed now: the median of three timings of WORKLOAD, in ms (lower is faster), or NaN when it
 * could not run. On the shared bench machine the same code's figures swing by half within minutes, with the
 * load average no guide; the runner takes this gauge before and after every scenario, so two result files
 * compare only where their gauges agree.
 */
export function machineGaugeMs(): number {
  const times: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = spawnSync(process.execPath, ['-e', WORKLOAD], { encoding: 'utf8', timeout: 30_000 });
    const ms = Number(r.stdout?.split(' ')[0]);
    if (r.status !== 0 || !Number.isFinite(ms)) return NaN;
    times.push(ms);
  }
  return times.sort((a, b) => a - b)[1];
}
