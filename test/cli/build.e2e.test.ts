import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freshDatabaseUrl } from '../support/postgres';

const ROOT = path.join(__dirname, '../..');
const run = promisify(execFile);

/** Runs a command to its end; resolves with its status and output (never rejects on a non-zero status). */
async function exec(cmd: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT, timeout = 120_000) {
  try {
    const r = await run(cmd, args, { cwd, env: { ...process.env, ...env }, timeout, maxBuffer: 16 * 1024 * 1024 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const err = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/**
 * The deployable build: `npm run build` compiles to JavaScript, and the `ifrs` bin runs that build. The build
 * goes to a temporary install (bin/ifrs.js, dist/, a link to node_modules, no TypeScript sources), so what runs
 * there can only be the compiled code.
 */
describe('the compiled build (npm run build) runs as ifrs', function () {
  this.timeout(600_000);
  let install: string;
  let bin: string;
  // The compiled code against the test suite's Postgres: the build, not the embedded cluster, is under test.
  const env = (extra: NodeJS.ProcessEnv = {}) => ({ KAFKA_BROKERS: '', ELASTICSEARCH_URL: '', ESDB_URL: '', IFRS_RUN: '', NODE_ENV: '', LOG_LEVEL: 'warn', ...extra });

  before(async function () {
    install = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-build-'));
    fs.mkdirSync(path.join(install, 'bin'));
    fs.copyFileSync(path.join(ROOT, 'bin/ifrs.js'), path.join(install, 'bin/ifrs.js'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(install, 'node_modules'), 'dir');
    bin = path.join(install, 'bin/ifrs.js');
    const build = await exec('npm', ['run', '--silent', 'build', '--', '--outDir', path.join(install, 'dist')], {}, ROOT, 540_000);
    assert.equal(build.code, 0, `npm run build: ${build.stdout}${build.stderr}`);
  });
  after(() => fs.rmSync(install, { recursive: true, force: true }));

  it('rule: npm run build compiles every layer to JavaScript in the outDir, migrations included', () => {
    for (const f of ['src/cli/main.js', 'src/cli/relaunch.js', 'src/server.js', 'infra/postgres/migrations/index.js', 'infra/postgres/migrations/010_idempotency_keys.js', 'commands', 'projections', 'queries']) {
      assert.ok(fs.existsSync(path.join(install, 'dist', f)), f);
    }
    assert.ok(!fs.existsSync(path.join(install, 'dist/test')), 'tests are not part of the build');
  });

  it('rule: production ifrs runs the compiled code: --help, and serve applies the migrations and answers /healthz', async () => {
    const help = await exec(process.execPath, [bin, '--help'], env({ NODE_ENV: 'production' }));
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /Usage: ifrs/);
    assert.match(help.stdout, /serve/);

    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-build-data-'));
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--data-dir', dataDir], { env: { ...process.env, ...env({ NODE_ENV: 'production', DATABASE_URL: await freshDatabaseUrl() }) }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      const deadline = Date.now() + 120_000;
      while (!/listening on (http:\/\/\S+)\/api\/v2/.test(out)) {
        assert.ok(Date.now() < deadline && child.exitCode === null, `serve did not start: ${out}${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const origin = /listening on (http:\/\/\S+)\/api\/v2/.exec(out)![1];
      const health = await fetch(`${origin}/healthz`);
      assert.equal(health.status, 200);
      assert.deepEqual(await health.json(), { status: 'ok' });
      const doc = await fetch(`${origin}/api/v2/openapi.json`);
      assert.equal(doc.status, 200);
      assert.equal((await doc.json() as { openapi: string }).openapi.slice(0, 2), '3.');
    } finally {
      child.kill('SIGTERM');
      assert.equal(await exited, 0, err);
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rule: the bulk relaunch (import) starts the compiled code again in its child', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-build-data-'));
    try {
      const missing = path.join(dataDir, 'missing.jsonl');
      const r = await exec(process.execPath, [bin, 'import', missing, '--data-dir', dataDir], env({ NODE_ENV: 'production', DATABASE_URL: await freshDatabaseUrl() }));
      assert.equal(r.code, 1, r.stderr);
      assert.equal(r.stderr, `ifrs: no such file: ${missing}\n`);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rule: without NODE_ENV, a build older than a source is not run (the sources are, through tsx); production still runs the build', async () => {
    // No sources in this install: a current build runs.
    assert.equal((await exec(process.execPath, [bin, '--help'], env())).code, 0);
    const stale = path.join(install, 'src/cli/main.ts');
    fs.mkdirSync(path.dirname(stale), { recursive: true });
    fs.writeFileSync(stale, 'throw new Error("the TypeScript sources ran");\n');
    const future = new Date(Date.now() + 60_000);
    fs.utimesSync(stale, future, future);
    const dev = await exec(process.execPath, [bin, '--help'], env());
    assert.notEqual(dev.code, 0);
    assert.match(dev.stderr, /the TypeScript sources ran|relaunch\.ts/);
    assert.equal((await exec(process.execPath, [bin, '--help'], env({ NODE_ENV: 'production' }))).code, 0);
    assert.equal((await exec(process.execPath, [bin, '--help'], env({ IFRS_RUN: 'dist' }))).code, 0);
    fs.rmSync(path.join(install, 'src'), { recursive: true, force: true });
  });

  it('rule: production without a build says to run npm run build (exit 1); a bad IFRS_RUN is exit 2', async () => {
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-nobuild-'));
    try {
      fs.mkdirSync(path.join(empty, 'bin'));
      fs.copyFileSync(bin, path.join(empty, 'bin/ifrs.js'));
      const r = await exec(process.execPath, [path.join(empty, 'bin/ifrs.js'), '--help'], env({ NODE_ENV: 'production' }));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^ifrs: no compiled build in .*: run `npm run build` first/);
      const bad = await exec(process.execPath, [bin, '--help'], env({ IFRS_RUN: 'both' }));
      assert.equal(bad.code, 2);
      assert.equal(bad.stderr, 'ifrs: invalid IFRS_RUN "both": expected dist or src\n');
    } finally {
      fs.rmSync(empty, { recursive: true, force: true });
    }
  });
});
