import { execFile } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';

export interface PacedResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** p99 of the generator's own lateness (a late timer tick, its own pauses), which is not counted in p50/p99. */
  lateP99?: number;
}

/** One keep-alive connection that sends a prebuilt GET and reads answers framed by Content-Length. */
class Connection {
  private buf: Buffer = Buffer.alloc(0);
  private onAnswer: ((status: number) => void) | null = null;
  /** When the last answer was read: from then on the connection could have carried the next request. */
  freeAt = 0;
  readonly socket: net.Socket;

  constructor(host: string, port: number, private readonly onError: () => void) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (d) => this.read(d));
    this.socket.once('connect', () => (this.freeAt = performance.now()));
    this.socket.on('error', () => this.fail());
    this.socket.on('close', () => this.fail());
  }

  get busy(): boolean {
    return this.onAnswer !== null;
  }

  send(request: Buffer, onAnswer: (status: number) => void): void {
    this.onAnswer = onAnswer;
    this.socket.write(request);
  }

  private read(d: Buffer): void {
    this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
    const end = this.buf.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buf.subarray(0, end).toString('latin1');
    const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buf.length < end + 4 + length) return;
    this.buf = this.buf.subarray(end + 4 + length);
    const answer = this.onAnswer;
    this.onAnswer = null;
    this.freeAt = performance.now();
    answer?.(Number(head.slice(9, 12)));
  }

  private fail(): void {
    if (this.onAnswer) {
      this.onAnswer = null;
      this.onError();
    }
  }
}

/**
 * GET requests sent evenly at a fixed rate over `connections` keep-alive connections, each latency
 * counted from the moment the request was due (a server that falls behind pays for the queue, as a
 * real client would see it), less the generator's own lateness: the time between the moment the request
 * could have gone (due, and a connection free) and the moment this process got round to sending it
 * (a 1 ms timer tick, its own collector), which is the generator's doing, not the server's. autocannon's `overallRate` is no substitute: it lets each connection send
 * back to back until its share of the second is used up, then pauses until the next second, so "half
 * the saturation rate" is saturation for half of every second; and it back-fills its histogram with
 * 1 ms steps below every slow answer. Raw sockets and a prebuilt request keep the generator's own
 * CPU, which shares the cores with the server, near autocannon's.
 */
export interface PacedOptions {
  rate: number;
  seconds: number;
  connections: number;
  headers?: Record<string, string>;
}

export async function pacedLoad(url: string, opts: PacedOptions): Promise<PacedResult> {
  const target = new URL(url);
  const headerLines = Object.entries({ Host: target.host, Connection: 'keep-alive', ...opts.headers }).map(([k, v]) => `${k}: ${v}\r\n`);
  const request = Buffer.from(`GET ${target.pathname}${target.search} HTTP/1.1\r\n${headerLines.join('')}\r\n`, 'latin1');
  const latencies: number[] = [];
  const lateness: number[] = [];
  let errors = 0;
  let non2xx = 0;
  const total = Math.round(opts.rate * opts.seconds);
  let done = 0;
  let finished!: () => void;
  const allDone = new Promise<void>((r) => (finished = r));
  const finish = () => {
    if (++done === total) finished();
  };
  const conns = Array.from({ length: opts.connections }, () => new Connection(target.hostname, Number(target.port), () => (errors++, finish())));
  await Promise.all(conns.map((c) => new Promise((r) => c.socket.once('connect', r))));
  const due: number[] = [];
  const dispatch = () => {
    for (const c of conns) {
      if (!due.length) return;
      if (c.busy) continue;
      const at = due.shift()!;
      const late = performance.now() - Math.max(at, c.freeAt);
      lateness.push(late);
      c.send(request, (status) => {
        if (status >= 200 && status < 300) latencies.push(performance.now() - at - late);
        else non2xx++;
        finish();
        dispatch();
      });
    }
  };
  const start = performance.now();
  let scheduled = 0;
  // A 1 ms tick queues everything that has fallen due: the schedule stays exact even when a tick is late.
  const timer = setInterval(() => {
    const now = performance.now();
    while (scheduled < total) {
      const at = start + (scheduled * 1000) / opts.rate;
      if (at > now) break;
      scheduled++;
      due.push(at);
    }
    if (scheduled >= total) clearInterval(timer);
    dispatch();
  }, 1);
  await allDone;
  const seconds = (performance.now() - start) / 1000;
  for (const c of conns) c.socket.destroy();
  latencies.sort((a, b) => a - b);
  lateness.sort((a, b) => a - b);
  const pct = (xs: number[], p: number) => (xs.length ? Math.round(xs[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] * 10) / 10 : NaN);
  return { rps: latencies.length / seconds, p50: pct(latencies, 50), p99: pct(latencies, 99), errors, non2xx, lateP99: pct(lateness, 99) };
}

/**
 * pacedLoad in a fresh child process, after `warmupSeconds` of the same load that is not counted. The bench
 * runner holds every earlier scenario's garbage; its collector pausing would delay reading answers and be
 * counted as server latency. The child's only work is the generator.
 */
export function pacedLoadInProcess(url: string, opts: PacedOptions & { warmupSeconds: number }): Promise<PacedResult> {
  const { warmupSeconds, ...rest } = opts;
  const main = path.join(__dirname, 'paced-load-main.ts');
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['-r', 'tsx/cjs', main, JSON.stringify({ url, opts: rest, warmupSeconds })], { maxBuffer: 1 << 20 }, (err, stdout, stderr) => {
      if (err) reject(new Error(`paced load failed: ${String(stderr).slice(-500) || err.message}`));
      else resolve(JSON.parse(stdout) as PacedResult);
    });
  });
}
