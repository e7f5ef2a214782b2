import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PacedOptions, PacedResult } from './paced-load';

/** What nghttp2's h2load logs per request (--log-file): start (µs since the epoch), status, duration (µs). */
export interface H2loadRow {
  start: number;
  status: number;
  micros: number;
}

export interface H2loadResult extends PacedResult {
  generator: 'h2load';
}

let found: boolean | null = null;

/** Whether `h2load` (Debian: apt-get install -y nghttp2-client) is on the PATH. */
export function h2loadInstalled(): boolean {
  if (found === null) {
    try {
      execFileSync('h2load', ['--version'], { stdio: 'ignore' });
      found = true;
    } catch {
      found = false;
    }
  }
  return found;
}

export function parseH2loadLog(text: string): H2loadRow[] {
  const rows: H2loadRow[] = [];
  for (const line of text.split('\n')) {
    const [start, status, micros] = line.split('\t');
    if (micros !== undefined) rows.push({ start: Number(start), status: Number(status), micros: Number(micros) });
  }
  return rows;
}

const percentile = (sorted: number[], p: number) => (sorted.length ? Math.round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] * 10) / 10 : NaN);

/**
 * Latencies as h2load measures them: from the moment each request was written. That is blind to a
 * request held back while its connection waited for a slow answer (coordinated omission), and h2load
 * paces a connection with a timer of at least 10 ms, so at ~200 requests a second per connection it
 * writes pairs back to back; both make it a cross-check of the server's own time, not a replacement
 * for pacedLoad's schedule-based numbers. Requests written in the first `warmupSeconds` are left out.
 */
export function summarizeH2load(rows: H2loadRow[], warmupSeconds: number): Omit<H2loadResult, 'errors' | 'generator'> {
  if (!rows.length) return { rps: 0, p50: NaN, p99: NaN, non2xx: 0 };
  const first = Math.min(...rows.map((r) => r.start));
  const measured = rows.filter((r) => r.start >= first + warmupSeconds * 1e6);
  const ok = measured.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.micros / 1000);
  ok.sort((a, b) => a - b);
  const from = Math.min(...measured.map((r) => r.start));
  const to = Math.max(...measured.map((r) => r.start + r.micros));
  const seconds = (to - from) / 1e6;
  return { rps: seconds > 0 ? ok.length / seconds : 0, p50: percentile(ok, 50), p99: percentile(ok, 99), non2xx: measured.length - ok.length };
}

/**
 * GET requests at a constant overall rate from h2load (native: its own pauses and CPU stay out of the
 * numbers). Connections are opened 1 ms apart so their timers do not all fire at once.
 */
export function h2loadPaced(url: string, opts: PacedOptions & { warmupSeconds: number }): Promise<H2loadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-h2load-'));
  const log = path.join(dir, 'requests.tsv');
  const total = Math.round(opts.rate * (opts.seconds + opts.warmupSeconds));
  const args = ['--h1', '-c', String(opts.connections), '-r', '1', '--rate-period', '1ms', '-n', String(total), '--rps', String(opts.rate / opts.connections), '--log-file', log];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}: ${v}`);
  args.push(url);
  return new Promise((resolve, reject) => {
    execFile('h2load', args, { maxBuffer: 1 << 20 }, (err, stdout) => {
      try {
        if (err) return reject(new Error(`h2load failed: ${err.message}`));
        // "requests: N total, N started, N done, N succeeded, N failed, N errored, N timeout": errors are
        // the requests without an answer (non-2xx answers are counted from the log).
        const m = /requests: \d+ total, \d+ started, (\d+) done, \d+ succeeded, \d+ failed, (\d+) errored, (\d+) timeout/.exec(stdout);
        const errors = m ? Number(m[2]) + Number(m[3]) + (total - Number(m[1])) : NaN;
        const summary = summarizeH2load(parseH2loadLog(fs.readFileSync(log, 'utf8')), opts.warmupSeconds);
        resolve({ ...summary, errors, generator: 'h2load' });
      } catch (e) {
        reject(e as Error);
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
