import crypto from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../../commands/import/import-cli';
import { S3BlobStore } from '../../infra/blobs/s3-blob-store';
import { loadConfig, type Config } from '../../src/config';
import { createLogger } from '../../src/logger';
import { openRuntime } from '../../src/runtime';
import { generatedFilings } from '../catalog-generator';
import { benchReadKey } from '../support/catalog-data';
import { BIN, loadRotating, startServerProcess } from '../support/load';
import { runStandalone } from '../support/standalone';
import type { BenchRow, BenchScenario } from '../types';

const CONNECTIONS = 16;
const ORIGINAL_BYTES = 16 * 1024;
const SERVERS = path.join(__dirname, '../../infra/servers/s3.sh');

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
 * `ifrs import` of generated filings with a 16 KB original and three text pages each (S3: every original and
 * text a PUT to the bucket; filesystem: small blobs batched into Postgres), the download redirect rate of an
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
      const imported: Record<string, number> = {};
      const keys: Record<string, string> = {};
      for (const [name, settings] of Object.entries(stores)) {
        const rt = await openRuntime(loadConfig({}, { dataDir: path.join(dir, `data-${name}`), s3: settings, logLevel: 'warn' }), createLogger('warn'), { poolMax: 10 });
        try {
          const started = Date.now();
          const r = await runImport(rt, file, { wait: true });
          const s = (Date.now() - started) / 1000;
          if (r.failed) throw new Error(`${name}: ${r.failed} records failed`);
          imported[name] = r.imported / s;
          ctx.log(`${name}: imported ${r.imported} filings in ${s.toFixed(2)} s (${Math.round(imported[name])}/s)`);
          keys[name] = await benchReadKey(rt, `Object storage bench (${name})`);
        } finally {
          await rt.close();
        }
      }
      const importNote = `${n} filings, each one 16 KB original (content.path) and 3 text pages; import --wait, all projections`;
      row('ifrs import, filesystem store', imported.filesystem, 'filings/s', undefined, importNote);
      row('ifrs import, S3', imported.s3, 'filings/s', undefined, `${importNote}; every original and text a PUT to the bucket`);
      row('ifrs import, S3 against filesystem', (imported.s3 / imported.filesystem) * 100, '%', '>= 80');

      const paths = fileIds.map((id) => ({ path: `/files/${id}/download` }));
      const rates: Record<string, number> = {};
      for (const name of Object.keys(stores)) {
        const env = name === 's3' ? { ...s3.env, S3_BUCKET: base.s3!.bucket } : { S3_BUCKET: '' };
        const serve = await startServerProcess(BIN, ['serve', '--port', '0', '--role', 'api', '--data-dir', path.join(dir, `data-${name}`)], { LOG_LEVEL: 'warn', ...env });
        try {
          const headers = { Authorization: `Bearer ${keys[name]}` };
          const probe = await fetch(`${serve.url}${paths[0].path}`, { headers, redirect: 'manual' });
          if (probe.status !== 302) throw new Error(`${name}: download answered ${probe.status}`);
          ctx.log(`${name}: Location ${probe.headers.get('location')!.slice(0, 80)}...`);
          await loadRotating(serve.url, paths, { connections: CONNECTIONS, seconds: 1, headers });
          const r = await loadRotating(serve.url, paths, { connections: CONNECTIONS, seconds, headers });
          rates[name] = r.rps;
          ctx.log(`${name}: ${Math.round(r.rps)} redirects/s, p99 ${r.p99} ms, ${r.errors} errors; ${r.generator}`);
          row(`download redirect, ${name}`, r.rps, 'req/s', undefined, `GET /files/{id}/download over ${paths.length} files, ${CONNECTIONS} connections, p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.errors} errors; ${r.generator}`);
        } finally {
          await serve.stop();
        }
      }
      row('download redirect, S3 against filesystem', (rates.s3 / rates.filesystem) * 100, '%', '>= 80', 'presigned SigV4 GET on the storage host against the service\'s own HMAC-signed address');

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
