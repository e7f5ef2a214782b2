import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { cpuSeconds } from './process-cpu';
import { wrk, wrkInstalled, type RotatingRequest, type WrkResult } from './wrk';

export type { RotatingRequest };

/** What a load run measured (the generator's figures, WrkResult's fields), and which generator measured it. */
export interface LoadResult extends WrkResult {
  /** Which generator measured it, for the rows' notes: GENERATOR_LABEL's values. */
  generator: string;
}

export type Generator = 'wrk' | 'autocannon';

export const GENERATOR_LABEL: Record<Generator, string> = { wrk: 'wrk (native)', autocannon: 'autocannon (in-process)' };

/**
 * The saturation generator: wrk when installed, unless BENCH_LOADGEN=autocannon. autocannon runs in
 * the bench's own node process on the cores the API and Postgres need, at ~60-450 us of CPU a request
 * (the most where each request differs, or at a low rate); wrk at ~25-80 us (the most for 64 KB
 * answers), so its figures are more the service's and less the generator's.
 */
export function saturationGenerator(): Generator {
  return process.env.BENCH_LOADGEN !== 'autocannon' && wrkInstalled() ? 'wrk' : 'autocannon';
}

interface LoadOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** A fixed overall rate (autocannon's, sent in bursts: see paced-load.ts); without it, saturation. */
  rate?: number;
  method?: string;
  body?: string;
  /** Forces a generator at saturation (cross-check rows); the default is saturationGenerator(). */
  generator?: Generator;
}

/** The options every autocannon run here shares. */
function autocannonBase(url: string, opts: Pick<LoadOptions, 'connections' | 'seconds' | 'headers' | 'method'>) {
  return { url, connections: opts.connections, duration: opts.seconds, headers: opts.headers, method: (opts.method ?? 'GET') as 'GET' };
}

/** Load against a URL: saturation (wrk, or autocannon: see saturationGenerator) or a fixed overall rate (autocannon). */
export async function load(url: string, opts: LoadOptions): Promise<LoadResult> {
  if (!opts.rate && (opts.generator ?? saturationGenerator()) === 'wrk') return fromWrk(await wrk(url, opts));
  return inProcess(() =>
    autocannon({ ...autocannonBase(url, opts), body: opts.body, ...(opts.rate ? { overallRate: opts.rate } : {}) }),
  );
}

/**
 * Saturation over a list of requests (paths below the URL's path, bodies), taken in turn across all
 * connections: so many distinct targets that no handful of rows stays hot in a cache, or commands that
 * each change something.
 */
export async function loadRotating(url: string, requests: RotatingRequest[], opts: Omit<LoadOptions, 'rate' | 'body'>): Promise<LoadResult> {
  if (!requests.length) throw new Error('loadRotating: no requests');
  if ((opts.generator ?? saturationGenerator()) === 'wrk') return fromWrk(await wrk(url, { ...opts, requests }));
  // autocannon's request path replaces the URL's whole path.
  const prefix = new URL(url).pathname.replace(/\/$/, '');
  let next = 0;
  return inProcess(() =>
    autocannon({
      ...autocannonBase(url, opts),
      requests: [
        {
          setupRequest: (req: { path: string; body?: string }) => {
            const r = requests[next++ % requests.length];
            return { ...req, path: prefix + r.path, ...(r.body !== undefined ? { body: r.body } : {}) };
          },
        },
      ],
    } as autocannon.Options),
  );
}

function fromWrk(r: WrkResult): LoadResult {
  return { ...r, generator: GENERATOR_LABEL.wrk };
}

/** autocannon's result, with its CPU: all of this process's over the run, as it shares the process with nothing busy. */
async function inProcess(run: () => Promise<autocannon.Result>): Promise<LoadResult> {
  const before = cpuSeconds(process.pid);
  const r = await run();
  const after = cpuSeconds(process.pid);
  const cpu = after.user + after.sys - before.user - before.sys;
  return {
    rps: r.requests.average,
    p50: r.latency.p50,
    p99: r.latency.p99,
    mean: r.latency.mean,
    errors: r.errors + r.timeouts,
    non2xx: r.non2xx,
    requests: r.requests.total,
    bytes: r.throughput.total,
    generator: GENERATOR_LABEL.autocannon,
    generatorCpuUs: r.requests.total ? (cpu / r.requests.total) * 1e6 : NaN,
  };
}

/** Starts a server process (a TypeScript file run through tsx) and resolves with its URL once it prints "listening on <url>". */
export function startServerProcess(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const isBin = script.endsWith('.js');
    // The server's log (at info, the access log's line per request) goes to a file, as a deployment's would,
    // instead of a pipe this process would have to read on the cores the server and the load generator use.
    const logFile = path.join(os.tmpdir(), `ifrs-bench-serve-${process.pid}-${Date.now()}.log`);
    const logFd = fs.openSync(logFile, 'w');
    const child = spawn(process.execPath, isBin ? [script, ...args] : ['-r', 'tsx/cjs', script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', logFd] });
    fs.closeSync(logFd);
    const tail = () => {
      try {
        return fs.readFileSync(logFile, 'utf8').slice(-500);
      } catch {
        return '';
      }
    };
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${tail()}`)), 120_000);
    child.stdout!.on('data', (d) => {
      out += d;
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({
          url: m[1],
          child,
          stop: () =>
            new Promise<void>((r) => {
              child.once('exit', () => r());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.on('exit', (code) => {
      reject(new Error(`server exited (${code}): ${tail()}`));
      fs.rm(logFile, { force: true }, () => undefined);
    });
  });
}

export const BIN = path.join(__dirname, '../../bin/ifrs.js');

/**
 * The log level of a measured `ifrs serve`: the service's default, info, so that the access log (a line per
 * request) is part of what is measured; BENCH_SERVE_LOG_LEVEL=warn measures without it.
 */
export const SERVE_LOG_LEVEL = process.env.BENCH_SERVE_LOG_LEVEL || 'info';

/** RSS of a process in MB, from /proc (Linux). */
export function rssMb(pid: number): number {
  try {
    const status = require('node:fs').readFileSync(`/proc/${pid}/status`, 'utf8') as string;
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Saturation runs back to back: the median run (by req/s), every run's rate, and all runs' requests. */
export interface RoundsResult extends LoadResult {
  rates: number[];
  /** Requests of every run together: CPU measured around all runs is divided by it. */
  totalRequests: number;
}

/**
 * How many saturation runs a goal's figure is the median of: BENCH_ROUNDS, else 3 in full mode and 1
 * in quick mode. One 10 s run on this shared machine swung by up to a third between minutes (a run of
 * POSTs: 890 and 1,460/s on the same code within ten minutes); the median of three is what a goal reads.
 */
export function benchRounds(quick: boolean): number {
  const n = Number(process.env.BENCH_ROUNDS);
  return Number.isInteger(n) && n >= 1 ? n : quick ? 1 : 3;
}

/** Runs `run` `rounds` times back to back and answers the median run, with every run's rate. */
export async function medianRun(rounds: number, run: () => Promise<LoadResult>): Promise<RoundsResult> {
  const runs: LoadResult[] = [];
  for (let i = 0; i < rounds; i++) runs.push(await run());
  const sorted = [...runs].sort((a, b) => a.rps - b.rps);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], rates: runs.map((r) => r.rps), totalRequests: runs.reduce((n, r) => n + r.requests, 0) };
}

/** "median of 3 runs: 1,234 / 1,456 / 1,301 req/s" for a row's note (empty for a single run). */
export function roundsNote(r: RoundsResult, unit = 'req/s'): string {
  if (r.rates.length < 2) return '';
  return `median of ${r.rates.length} runs: ${r.rates.map((x) => Math.round(x).toLocaleString('en-US')).join(' / ')} ${unit}`;
}
