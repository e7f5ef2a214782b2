import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../../src/cli/import/import-cli';
import { S3BlobStore } from '../../infra/blobs/s3-blob-store';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime } from '../../src/runtime';
import { generatedFilings } from '../catalog-generator';
import { benchReadKey } from '../support/catalog-data';
import { BIN, loadRotating, startServerProcess } from '../support/load';
import { cpuSeconds } from '../support/process-cpu';
import { runStandalone } from '../support/standalone';
import type { BenchRow, BenchScenario } from '../types';

const CONNECTIONS = 16;
const ORIGINAL_BYTES = 16 * 1024;
const SERVERS = path.join(__dirname, '../../infra/servers/s3.sh');
/** infra/servers/s3.sh's pid file (default SERVERS_DIR): the gateway's CPU is measured when it runs here. */
const GATEWAY_PID = path.join(process.env.SERVERS_DIR ?? path.join(__dirname, '../../infra/.cache/run'), 's3/versitygw.pid');

function gatewayCpu(): number | null {
  const pid = fs.existsSync(GATEWAY_PID) ? Number(fs.readFileSync(GATEWAY_PID, 'utf8')) : NaN;
  if (!pid) return null;
  const c = cpuSeconds(pid);
  return c.user + c.sys || null;
}

/** S3_* from the environment, or a gateway started (and later stopped) by infra/servers/s3.sh. */
function s3Environment(log: (m: string) => void): { env: Record<string, string>; stop(): void } {
  if (process.env.S3_ENDPOINT && process.env.S3_BUCKET) {
    const env = Object.fromEntries(['S3_ENDPOINT', 'S3_BUCKET', 'S3_REGION', 'S3_FORCE_PATH_STYLE', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'].filter((k) => process.env[k]).map((k) => [k, process.env[k]!]));
    return { env, stop: () => undefined };
  }
  log('S3_ENDPOINT not set: starting Versity S3 Gateway (infra/servers/s3.sh)');
  const out = execFileSync(SERVERS, ['start'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const env = Object.fromEntries(out.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return { env, stop: () => execFileSync(SERVERS, ['stop'], { stdio: ['ignore', 'ignore', 'inherit'] }) };
}

/** `n` generated filings whose one file has a 16 KB original on disk (content.path) besides its three text pages. */
function writeCatalog(dir: string, n: number): { file: string; fileIds: string[] } {
  const originals = path.join(dir, 'originals');
  fs.mkdirSync(originals, { recursive: true });
  const lines: string[] = [];
  const fileIds: string[] = [];
  let i = 0;
  for (const filing of generatedFilings(n)) {
    const f = (filing.files as Record<string, unknown>[])[0];
    const original = path.join(originals, `${i++}.bin`);
    fs.writeFileSync(original, crypto.randomBytes(ORIGINAL_BYTES));
    Object.assign(f, { content: { path: original }, mimeType: 'application/octet-stream' });
    fileIds.push(f.fileId as string);
    lines.push(JSON.stringify(filing));
  }
  const file = path.join(dir, 'catalog.jsonl');
  fs.writeFileSync(file, lines.join('\n') + '\n');
  return { file, fileIds };
}

/** Bytes per second of `count` transfers of `size` bytes, `parallel` at a time. */
async function throughput(count: number, parallel: number, size: number, transfer: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < count) await transfer(next++);
  }));
  return (count * size) / (Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * Object storage (S3_BUCKET) against the filesystem store in one run, on the same machine and catalog:
 * `ifrs import` of generated filings with a 16 KB original and three text pages each (S3: every original a PUT
 * to the bucket; filesystem: small blobs, originals included, batched into Postgres; texts in Postgres for both), the download redirect rate of an
 * `ifrs serve --role api` process (S3: a presigned SigV4 GET; filesystem: the service's HMAC address), and
 * bytes/s through presigned PUTs and GETs of 8 MiB objects. The S3 server is Versity S3 Gateway on loopback
 * over this machine's disk, so its figures include the gateway's CPU on the same cores.
 */
export const scenario: BenchScenario = {
  name: 'object-storage',
  async run(ctx) {
    const n = Number(process.env.BENCH_S3_FILINGS) || (ctx.quick ? 500 : 3000);
    const seconds = ctx.quick ? 3 : 10;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-bench-s3-'));
    fs.chmodSync(dir, 0o755); // the embedded Postgres may run as another user and must reach its data directory
    const s3 = s3Environment(ctx.log);
    const rows: BenchRow[] = [];
    const row = (metric: string, value: number, unit: string, goal?: string, note?: string) => rows.push({ scenario: 'object-storage', metric, value, unit, ...(goal ? { goal } : {}), ...(note ? { note } : {}) });
    try {
      const { file, fileIds } = writeCatalog(dir, n);
      const base = loadConfig({ ...s3.env, S3_BUCKET: `${s3.env.S3_BUCKET}-bench-${crypto.randomBytes(4).toString('hex')}` });
      const stores = { filesystem: null, s3: base.s3 } satisfies Record<string, Config['s3']>;
      type Store = keyof typeof stores;
      // This machine's speed drifts by a third within minutes (other work on the same cores): the two stores
      // are measured in turns, A B B A for the imports and alternating runs for the redirects, not one after the other.
      const imports: Record<Store, number[]> = { filesystem: [], s3: [] };
      const gatewaySeconds: number[] = [];
      const keys = {} as Record<Store, string>;
      for (const [turn, name] of (['filesystem', 's3', 's3', 'filesystem'] as const).entries()) {
        const dataDir = path.join(dir, `data-${name}-${turn}`);
        const rt = await openRuntime(loadConfig({}, { dataDir, s3: stores[name], logLevel: 'warn' }), createLogger('warn'), { poolMax: 10 });
        try {
          const started = Date.now();
          const gw = gatewayCpu();
          const r = await runImport(rt, file, { wait: true });
          const s = (Date.now() - started) / 1000;
          const gwAfter = gatewayCpu();
          if (name === 's3' && gw !== null && gwAfter !== null) gatewaySeconds.push(gwAfter - gw);
          if (r.failed) throw new Error(`${name}: ${r.failed} records failed`);
          imports[name].push(r.imported / s);
          ctx.log(`${name}: imported ${r.imported} filings in ${s.toFixed(2)} s (${Math.round(r.imported / s)}/s)`);
          if (!keys[name]) keys[name] = await benchReadKey(rt, `Object storage bench (${name})`);
        } finally {
          await rt.close();
        }
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const runs = (xs: number[]) => xs.map((x) => Math.round(x)).join(' / ');
      const importNote = `${n} filings, each one 16 KB original (content.path) and 3 text pages; import --wait, all projections; mean of 2 runs in turns A B B A`;
      row('ifrs import, filesystem store', mean(imports.filesystem), 'filings/s', undefined, `${importNote}: ${runs(imports.filesystem)}`);
      const gatewayNote = gatewaySeconds.length ? `; the gateway (on the same 2 cores) used ${runs(gatewaySeconds.map((x) => x * 1000))} ms of CPU during them` : '';
      row('ifrs import, S3', mean(imports.s3), 'filings/s', undefined, `${importNote}: ${runs(imports.s3)}; each original a PUT to the bucket, texts batched into Postgres${gatewayNote}`);
      row('ifrs import, S3 against filesystem', (mean(imports.s3) / mean(imports.filesystem)) * 100, '%', '>= 80');

      const paths = fileIds.map((id) => ({ path: `/files/${id}/download` }));
      const servers = {} as Record<Store, Awaited<ReturnType<typeof startServerProcess>>>;
      try {
        for (const name of Object.keys(stores) as Store[]) {
          const env = name === 's3' ? { ...s3.env, S3_BUCKET: base.s3!.bucket } : { S3_BUCKET: '' };
          servers[name] = await startServerProcess(BIN, ['serve', '--port', '0', '--role', 'api', '--data-dir', path.join(dir, `data-${name}-${name === 's3' ? 1 : 0}`)], { LOG_LEVEL: 'warn', ...env });
          const probe = await fetch(`${servers[name].url}${paths[0].path}`, { headers: { Authorization: `Bearer ${keys[name]}` }, redirect: 'manual' });
          if (probe.status !== 302) throw new Error(`${name}: download answered ${probe.status}`);
          ctx.log(`${name}: Location ${probe.headers.get('location')!.slice(0, 80)}...`);
          await loadRotating(servers[name].url, paths, { connections: CONNECTIONS, seconds: 1, headers: { Authorization: `Bearer ${keys[name]}` } });
        }
        const rounds = 5;
        const results: Record<Store, Awaited<ReturnType<typeof loadRotating>>[]> = { filesystem: [], s3: [] };
        const apiCpu: Record<Store, number> = { filesystem: 0, s3: 0 };
        for (let i = 0; i < rounds; i++) {
          for (const name of (i % 2 ? ['s3', 'filesystem'] : ['filesystem', 's3']) as Store[]) {
            const before = cpuSeconds(servers[name].child.pid!);
            const r = await loadRotating(servers[name].url, paths, { connections: CONNECTIONS, seconds, headers: { Authorization: `Bearer ${keys[name]}` } });
            const after = cpuSeconds(servers[name].child.pid!);
            apiCpu[name] += after.user + after.sys - before.user - before.sys;
            ctx.log(`${name}: ${Math.round(r.rps)} redirects/s, p99 ${r.p99} ms, ${r.errors} errors; ${r.generator}`);
            results[name].push(r);
          }
        }
        const median = (name: Store) => [...results[name]].sort((a, b) => a.rps - b.rps)[Math.floor(rounds / 2)];
        for (const name of Object.keys(stores) as Store[]) {
          const m = median(name);
          const how = name === 's3' ? 'a presigned SigV4 GET on the storage host' : 'the service\'s own HMAC-signed address';
          row(`download redirect, ${name}`, m.rps, 'req/s', undefined, `GET /files/{id}/download (302 to ${how}) over ${paths.length} files, ${CONNECTIONS} connections, median of ${rounds} ${seconds} s runs in turns with the other store (${runs(results[name].map((r) => r.rps))}), p50 ${m.p50} ms, p99 ${m.p99} ms, ${m.errors} errors; ${m.generator}`);
        }
        row('download redirect, S3 against filesystem', (median('s3').rps / median('filesystem').rps) * 100, '%', '>= 80', 'median rates; single runs swing several-fold on this shared machine, see the CPU rows');
        // The API's CPU per redirect is what bounds its rate, and swings far less with the machine's other work.
        const cpuPer = (name: Store) => (apiCpu[name] / results[name].reduce((n, r) => n + r.requests, 0)) * 1e6;
        for (const name of Object.keys(stores) as Store[]) row(`download redirect, ${name}: API CPU per redirect`, cpuPer(name), 'us', undefined, `user + system CPU of the serve process over all ${rounds} runs / their requests`);
        row('download redirect, S3 against filesystem by API CPU per redirect', (cpuPer('filesystem') / cpuPer('s3')) * 100, '%', undefined, 'the rate the S3 redirect would reach, relative to the filesystem one, where the API process bounds both');
      } finally {
        for (const s of Object.values(servers)) await s.stop();
      }

      const store = new S3BlobStore(base.s3!);
      try {
        const size = 8 * 1024 * 1024;
        const count = ctx.quick ? 8 : 32;
        const body = crypto.randomBytes(size);
        const ids = Array.from({ length: count }, () => crypto.randomUUID());
        const put = await throughput(count, 4, size, async (i) => {
          const r = await fetch(await store.uploadUrl(ids[i], 300), { method: 'PUT', body });
          if (r.status !== 200) throw new Error(`presigned PUT: ${r.status}`);
        });
        const { sha256 } = await store.put(body);
        const get = await throughput(count, 4, size, async () => {
          const r = await fetch(await store.downloadUrl(sha256, { contentType: 'application/octet-stream', contentDisposition: 'attachment' }, 300));
          if ((await r.arrayBuffer()).byteLength !== size) throw new Error(`presigned GET: ${r.status}`);
        });
        const note = `${count} objects of 8 MiB, 4 at a time, fetch over loopback to the gateway`;
        row('presigned PUT throughput', put / 2 ** 20, 'MiB/s', undefined, note);
        row('presigned GET throughput', get / 2 ** 20, 'MiB/s', undefined, note);
        await Promise.all(ids.map((id) => store.discardUpload(id)));
      } finally {
        await store.close();
      }
      return rows;
    } finally {
      s3.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

if (require.main === module) runStandalone(scenario);
