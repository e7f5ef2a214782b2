import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { ensureEmbeddedPostgres, type EmbeddedHandle } from '../../infra/postgres/embedded';
import { createLogger } from '../../src/util/logger';

let handle: EmbeddedHandle | null = null;
let dir: string | null = null;

/** A database for one scenario on a bench-wide embedded Postgres (or BENCH_DATABASE_URL's server). */
export async function benchDatabase(): Promise<string> {
  let base = process.env.BENCH_DATABASE_URL;
  if (!base) {
    if (!handle) {
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-bench-pg-'));
      handle = await ensureEmbeddedPostgres(dir, createLogger('warn'));
      process.on('exit', () => {
        if (dir) fs.rmSync(dir, { recursive: true, force: true });
      });
    }
    base = handle.connectionString;
  }
  const name = `bench_${crypto.randomBytes(4).toString('hex')}`;
  const c = new pg.Client({ connectionString: base });
  await c.connect();
  await c.query(`create database ${name}`);
  await c.end();
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
}

export function tmpDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}
