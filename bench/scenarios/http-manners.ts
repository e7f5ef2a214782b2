import path from 'node:path';
import type { BenchRow, BenchScenario } from '../types';
import { catalogBenchData } from '../support/catalog-data';
import { BIN, load, startServerProcess } from '../support/load';
import { cpuSeconds } from '../support/process-cpu';

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * What the access log and compression cost (issue 22: each at most 10% of throughput; compression only above
 * its size threshold), in one run on the catalog data set: GET /users/me (a small answer, below the threshold)
 * and the catalog list (limit 50, ~70 KB), each served
 * - with the access log (LOG_LEVEL=info, one line per request) and without it (LOG_LEVEL=warn), by two
 *   `ifrs serve --role api` processes on the same data, measured in alternating rounds (A B B A ...);
 * - by the logging process with and without `Accept-Encoding: gzip, br`, also alternating. Below the
 *   threshold the header must cost nothing; above it the answer is compressed, whose CPU is the price of the
 *   bytes saved (reported, with the ratio of bytes on the wire).
 * Rates are medians of the rounds; API CPU per request (user + system of the serve process) beside them.
 */
export const scenario: BenchScenario = {
  name: 'http-manners',
  async run(ctx) {
    const n = Number(process.env.BENCH_CATALOG_FILINGS ?? (ctx.quick ? 20_000 : 1_000_000));
    const seconds = ctx.quick ? 3 : 10;
    const rounds = ctx.quick ? 6 : 8;
    const base = process.env.BENCH_DATA_DIR ?? path.resolve(__dirname, '../../../bench-data');
    const data = await catalogBenchData(path.join(base, `catlist-${n}`), n, ctx.log);
    const auth = { Authorization: `Bearer ${data.apiKey}` };
    const targets = [
      ['GET /users/me', '/users/me'],
      ['GET /insurance/filings?limit=50', '/insurance/filings?limit=50'],
    ] as const;
    type Side = 'log' | 'nolog' | 'gzip';
    const figures = new Map<string, { rps: number[]; cpuUs: number[]; bytes: number[] }>();
    const note = (target: string, side: Side, rps: number, cpuUs: number, bytesPerRequest: number) => {
      const key = `${target}|${side}`;
      const f = figures.get(key) ?? { rps: [], cpuUs: [], bytes: [] };
      f.rps.push(rps);
      f.cpuUs.push(cpuUs);
      f.bytes.push(bytesPerRequest);
      figures.set(key, f);
    };
    const serve = (level: string) => startServerProcess(BIN, ['serve', '--port', '0', '--role', 'api', '--data-dir', data.dataDir], { LOG_LEVEL: level });
    const measure = async (s: { url: string; child: { pid?: number } }, target: string, p: string, side: Side) => {
      const headers = side === 'gzip' ? { ...auth, 'Accept-Encoding': 'gzip, br' } : auth;
      await load(s.url + p, { connections: 16, seconds: 1, headers });
      const c0 = cpuSeconds(s.child.pid!);
      const r = await load(s.url + p, { connections: 16, seconds, headers });
      const c1 = cpuSeconds(s.child.pid!);
      if (r.errors || r.non2xx) throw new Error(`${target} (${side}): ${r.errors} errors, ${r.non2xx} non-2xx`);
      note(target, side, r.rps, ((c1.user + c1.sys - c0.user - c0.sys) * 1e6) / r.requests, r.bytes / r.requests);
    };
    for (let round = 0; round < rounds; round++) {
      const order: ('info' | 'warn')[] = round % 2 === 0 ? ['info', 'warn'] : ['warn', 'info'];
      for (const level of order) {
        const s = await serve(level);
        try {
          for (const [target, p] of targets) {
            if (level === 'warn') await measure(s, target, p, 'nolog');
            else {
              // Plain and compressed alternate inside the logging process too.
              for (const side of (round % 2 === 0 ? ['log', 'gzip'] : ['gzip', 'log']) as Side[]) await measure(s, target, p, side);
            }
          }
        } finally {
          await s.stop();
        }
      }
      ctx.log(`round ${round + 1}/${rounds} done`);
    }
    const rows: BenchRow[] = [];
    const of = (target: string, side: Side) => figures.get(`${target}|${side}`)!;
    const scale = `${n.toLocaleString('en-US')} filings, 16 connections, medians of ${rounds} alternating rounds of ${seconds} s`;
    for (const [target] of targets) {
      const log = of(target, 'log');
      const nolog = of(target, 'nolog');
      const gzip = of(target, 'gzip');
      const cpuNote = (f: { cpuUs: number[] }) => `API CPU ${Math.round(median(f.cpuUs))} us/request`;
      rows.push({ scenario: 'http-manners', metric: `${target}: req/s without the access log`, value: Math.round(median(nolog.rps)), unit: 'req/s', note: `${cpuNote(nolog)}; ${scale}` });
      rows.push({ scenario: 'http-manners', metric: `${target}: req/s with the access log`, value: Math.round(median(log.rps)), unit: 'req/s', note: `${cpuNote(log)}; ${scale}` });
      rows.push({ scenario: 'http-manners', metric: `${target}: access log, with against without`, value: Math.round((median(log.rps) / median(nolog.rps)) * 1000) / 10, unit: '%', goal: '>= 90' });
      const compressed = median(gzip.bytes) < median(log.bytes) * 0.9;
      rows.push({
        scenario: 'http-manners',
        metric: `${target}: req/s with Accept-Encoding: gzip, br`,
        value: Math.round(median(gzip.rps)),
        unit: 'req/s',
        note: `${cpuNote(gzip)}; ${Math.round(median(gzip.bytes))} bytes/answer on the wire against ${Math.round(median(log.bytes))} plain (${compressed ? 'compressed' : 'below the threshold: sent as it is'})`,
      });
      rows.push({
        scenario: 'http-manners',
        metric: `${target}: Accept-Encoding, with against without`,
        value: Math.round((median(gzip.rps) / median(log.rps)) * 1000) / 10,
        unit: '%',
        ...(compressed ? { note: 'compressed: the rate pays for the bytes saved (the goal holds below the threshold)' } : { goal: '>= 90' }),
      });
    }
    return rows;
  },
};
