import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon from 'autocannon';

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
  /** Mean latency in ms (autocannon keeps fractions here, unlike its percentiles). */
  mean: number;
  errors: number;
  non2xx: number;
  /** Requests completed over the run. */
  requests: number;
}

/** autocannon against a URL: saturation (no rate) or a fixed overall rate. */
export async function load(url: string, opts: { connections: number; seconds: number; headers?: Record<string, string>; rate?: number; method?: string; body?: string }): Promise<LoadResult> {
  const r = await autocannon({
    url,
    connections: opts.connections,
    duration: opts.seconds,
    headers: opts.headers,
    method: (opts.method ?? 'GET') as 'GET',
    body: opts.body,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
  });
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, mean: r.latency.mean, errors: r.errors + r.timeouts, non2xx: r.non2xx, requests: r.requests.total };
}

/** Starts a server process (a TypeScript file run through tsx) and resolves with its URL once it prints "listening on <url>". */
export function startServerProcess(script: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const isBin = script.endsWith('.js');
    const child = spawn(process.execPath, isBin ? [script, ...args] : ['-r', 'tsx/cjs', script, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${err.slice(-500)}`)), 120_000);
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
    child.stderr!.on('data', (d) => (err += d));
    child.on('exit', (code) => reject(new Error(`server exited (${code}): ${err.slice(-500)}`)));
  });
}

export const BIN = path.join(__dirname, '../../bin/ifrs.js');

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
