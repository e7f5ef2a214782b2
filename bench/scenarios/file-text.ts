import path from 'node:path';
import { fileTextBenchData, type TextFile } from '../support/file-text-data';
import { BIN, loadRotating, rssMb, startServerProcess, type Generator } from '../support/load';
import { cpuSeconds, postgresCpuSeconds } from '../support/process-cpu';
import { runStandalone } from '../support/standalone';
import type { BenchRow, BenchScenario } from '../types';

const CONNECTIONS = 16;
const DEFAULT_MAX_BYTES = 65_536;
const SMALL_MAX_BYTES = 4_096;
/** Distinct requests per shape: enough that no handful of rows or blobs stays hot in a cache. */
const TARGETS = 20_000;

interface ShapeResult {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Mean response body in bytes. */
  bodyBytes: number;
  /** API process CPU (user + system) per request, in microseconds. */
  cpuUs: number;
  /** Of which system time (socket writes of the bodies, mostly). */
  sysUs: number;
  /** The Postgres server's CPU (postmaster and its backends) per request. */
  pgUs: number;
  generator: string;
  /** The load generator's own CPU per request, in microseconds. */
  generatorCpuUs: number;
}

/** Saturation over a list of request paths, each connection taking the next one in turn. */
async function loadPaths(base: string, paths: string[], opts: { seconds: number; headers: Record<string, string>; pid: number; dataDir: string; generator?: Generator }): Promise<ShapeResult> {
  const cpuBefore = cpuSeconds(opts.pid);
  const pgBefore = postgresCpuSeconds(opts.dataDir);
  const r = await loadRotating(
    base,
    paths.map((p) => ({ path: p })),
    { connections: CONNECTIONS, seconds: opts.seconds, headers: opts.headers, generator: opts.generator },
  );
  const cpuAfter = cpuSeconds(opts.pid);
  const pg = postgresCpuSeconds(opts.dataDir) - pgBefore;
  const perRequest = (seconds: number) => (r.requests ? (seconds / r.requests) * 1e6 : 0);
  return {
    rps: r.rps,
    p50: r.p50,
    p99: r.p99,
    errors: r.errors,
    non2xx: r.non2xx,
    bodyBytes: r.requests ? r.bytes / r.requests : 0,
    cpuUs: perRequest(cpuAfter.user + cpuAfter.sys - cpuBefore.user - cpuBefore.sys),
    sysUs: perRequest(cpuAfter.sys - cpuBefore.sys),
    pgUs: perRequest(pg),
    generator: r.generator,
    generatorCpuUs: r.generatorCpuUs,
  };
}

interface Chunk {
  text: string;
  nextCursor: string | null;
  location: { startOffsetBytes: number; endOffsetBytes: number };
}

async function chunk(base: string, headers: Record<string, string>, p: string): Promise<Chunk> {
  const res = await fetch(base + p, { headers });
  if (res.status !== 200) throw new Error(`${p}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Chunk;
}

const textPath = (fileId: string, maxBytes?: number, cursor?: string | null) => {
  const q = new URLSearchParams();
  if (maxBytes) q.set('maxBytes', String(maxBytes));
  if (cursor) q.set('cursor', cursor);
  const s = q.toString();
  return `/files/${fileId}/text${s ? `?${s}` : ''}`;
};

/** Spread picks over the whole list (deterministic), so every part of the corpus is read. */
function spread<T>(items: T[], count: number): T[] {
  if (items.length <= count) return items;
  const step = items.length / count;
  return Array.from({ length: count }, (_, i) => items[Math.floor(i * step)]);
}

/**
 * Paths of a reader going through files in 4 KB chunks: the first chunk, then each follow-up with
 * the previous nextCursor, for files taken across the corpus until `count` requests are collected.
 */
async function smallChunkWalks(base: string, headers: Record<string, string>, files: TextFile[], count: number): Promise<string[]> {
  const out: string[] = [];
  // Long documents would be walked for up to 160 chunks each; cap each walk so many files take part.
  const perFile = 24;
  for (const f of spread(files, Math.ceil(count / 2))) {
    let cursor: string | null = null;
    for (let i = 0; i < perFile && out.length < count; i++) {
      const p = textPath(f.fileId, SMALL_MAX_BYTES, cursor);
      out.push(p);
      cursor = (await chunk(base, headers, p)).nextCursor;
      if (!cursor) break;
    }
    if (out.length >= count) break;
  }
  return out;
}

/**
 * GET /files/{fileId}/text against a real `ifrs serve --role api` process, over the demo generator's
 * filings with extracted text (quick: 500 filings; full: 10,000, about 31,000 text files, one in 20
 * lengthened to a 96-640 KB manual; see bench/support/file-text-data.ts). Shapes, each over thousands of
 * distinct requests at 16 connections: (a) a file's first chunk at the default maxBytes, over every text
 * file; (b) the second chunk of a long document via its nextCursor (a full 64 KB chunk); (c) a reader
 * walking files in 4 KB chunks (first chunk, then cursors). Reports req/s, p99, the API's CPU per
 * request and its RSS.
 */
export const scenario: BenchScenario = {
  name: 'file-text',
  async run(ctx) {
    const n = Number(process.env.BENCH_TEXT_FILINGS ?? (ctx.quick ? 500 : 10_000));
    const seconds = ctx.quick ? 3 : 10;
    const base = process.env.BENCH_DATA_DIR ?? path.resolve(__dirname, '../../../bench-data');
    const data = await fileTextBenchData(path.join(base, `file-text-${n}`), n, ctx.log);
    const long = data.files.filter((f) => f.byteLength > DEFAULT_MAX_BYTES);
    const scale = `${n.toLocaleString('en-US')} filings, ${data.files.length.toLocaleString('en-US')} text files (${long.length} over 64 KB)`;
    const rows: BenchRow[] = [];
    const row = (metric: string, value: number, unit: string, goal?: string, note?: string) =>
      rows.push({ scenario: 'file-text', metric, value, unit, ...(goal ? { goal } : {}), note: note ? `${note}; ${scale}` : scale });

    const serve = await startServerProcess(BIN, ['serve', '--port', '0', '--role', 'api', '--data-dir', data.dataDir], { LOG_LEVEL: 'warn' });
    const pid = serve.child.pid!;
    let maxRss = 0;
    const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMb(pid))), 250);
    try {
      const headers = { Authorization: `Bearer ${data.apiKey}` };
      const firstChunks = spread(data.files, TARGETS).map((f) => textPath(f.fileId));
      // (b): the cursors come from first chunks read now (they expire 24 hours after it).
      const followUps: string[] = [];
      for (const f of spread(long, Math.min(long.length, 2_000))) {
        const first = await chunk(serve.url, headers, textPath(f.fileId));
        if (first.nextCursor) followUps.push(textPath(f.fileId, undefined, first.nextCursor));
      }
      const small = await smallChunkWalks(serve.url, headers, data.files, ctx.quick ? 2_000 : TARGETS);
      ctx.log(`prepared ${firstChunks.length} first chunks, ${followUps.length} follow-ups, ${small.length} small-chunk requests`);

      const shapes = [
        { name: '(a) first chunk, default maxBytes', paths: firstChunks, goal: true, note: `first chunk (maxBytes 65,536) of ${firstChunks.length.toLocaleString('en-US')} different files: most texts (median ~7 KB) come whole, long ones cut at 64 KB` },
        // No goal: a full 64 KB body per request (escaping and sending it) is most of its cost, and few reads are like it.
        { name: '(b) follow-up chunk via nextCursor', paths: followUps, goal: false, note: `second 64 KB chunk of ${followUps.length.toLocaleString('en-US')} long documents (96-640 KB; over 256 KiB in the filesystem store), cursor decoded and re-issued` },
        { name: '(c) 4 KB chunks, a reader walking files', paths: small, goal: true, note: `maxBytes 4,096: ${small.length.toLocaleString('en-US')} requests walking files chunk by chunk (first chunk, then nextCursor)` },
      ];
      for (const s of shapes) {
        if (!s.paths.length) continue;
        await loadPaths(serve.url, s.paths, { seconds: 1, headers, pid, dataDir: data.dataDir });
        const r = await loadPaths(serve.url, s.paths, { seconds, headers, pid, dataDir: data.dataDir });
        ctx.log(`${s.name}: ${Math.round(r.rps)} req/s, p99 ${r.p99} ms, ${Math.round(r.cpuUs)} us API CPU/request (${Math.round(r.sysUs)} system), ${Math.round(r.pgUs)} us Postgres CPU/request, ${Math.round(r.bodyBytes)} B/response; ${r.generator}, ${Math.round(r.generatorCpuUs)} us of its CPU/request`);
        const failed = r.errors + r.non2xx ? `, ${r.errors} errors/timeouts, ${r.non2xx} non-2xx` : '';
        row(`${s.name}: req/s at saturation`, r.rps, 'req/s', s.goal ? '>= 2000' : undefined, `${s.note}; ${CONNECTIONS} connections, p50 ${r.p50} ms, p99 ${r.p99} ms, ~${Math.round(r.bodyBytes / 1024)} KB/response${failed}; ${r.generator}, ${Math.round(r.generatorCpuUs)} us of its CPU per request`);
        row(`${s.name}: p99 at saturation`, r.p99, 'ms', undefined, `${CONNECTIONS} connections, ${r.generator}`);
        row(`${s.name}: API CPU per request`, r.cpuUs, 'us', undefined, `user + system CPU of the serve process over the run / requests (system ${Math.round(r.sysUs)} us)`);
        row(`${s.name}: Postgres CPU per request`, r.pgUs, 'us', undefined, 'CPU of the postmaster and its backends over the run / requests');
      }
      // The first shape again with the in-process generator, to compare with result files from before wrk.
      const cross = await loadPaths(serve.url, firstChunks, { seconds, headers, pid, dataDir: data.dataDir, generator: 'autocannon' });
      ctx.log(`${shapes[0].name}, ${cross.generator}: ${Math.round(cross.rps)} req/s, ${Math.round(cross.generatorCpuUs)} us of its CPU/request`);
      row(
        `${shapes[0].name}: req/s at saturation, autocannon cross-check`,
        cross.rps,
        'req/s',
        undefined,
        `${cross.generator}, ${Math.round(cross.generatorCpuUs)} us of its CPU per request on the cores the API uses; p99 ${cross.p99} ms, API ${Math.round(cross.cpuUs)} us CPU/request, ${cross.errors} errors/timeouts, ${cross.non2xx} non-2xx`,
      );
      maxRss = Math.max(maxRss, rssMb(pid));
      row('API process peak RSS under these loads', maxRss, 'MB');
      return rows;
    } finally {
      clearInterval(sampler);
      await serve.stop();
    }
  },
};

if (require.main === module) runStandalone(scenario);
