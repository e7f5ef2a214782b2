import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, startServe } from '../support/cli';
import { processAlive as alive } from '../../src/util/process';

function postmasterPid(dataDir: string): number | null {
  const f = path.join(dataDir, 'pg', 'postmaster.pid');
  return fs.existsSync(f) ? Number(fs.readFileSync(f, 'utf8').split('\n')[0]) : null;
}


/** Polls `condition` every 100 ms; fails with `message` (a function: it may report output gathered meanwhile) after `ms`. */
async function until(condition: () => boolean, message: () => string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    assert.ok(Date.now() < deadline, message());
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** After a test's own data directory: a Postgres still running on it is killed, then the directory goes. */
function removeDataDir(dir: string): void {
  const pid = postmasterPid(dir);
  if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
}

describe('the ifrs command on the embedded default', function () {
  this.timeout(180_000);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-'));
  const dd = ['--data-dir', dataDir];
  // The embedded default, whatever the CI environment points at.
  const env = { DATABASE_URL: '', IFRS_DATA_DIR: '', KAFKA_BROKERS: '', ELASTICSEARCH_URL: '', ESDB_URL: '' };
  after(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('admin commands print one JSON object each, serve answers /users/me, and CLI commands work while it runs', async () => {
    const tenant = await runCli(['admin', 'tenant', 'create', '--name', 'Acme', '--dataset', 'naic', ...dd], env);
    assert.equal(tenant.code, 0, tenant.stderr);
    assert.match(tenant.json.tenantId, /^[0-9a-f-]{36}$/);
    assert.equal(tenant.stdout.trim().split('\n').length, 1, 'exactly one JSON object on stdout');
    const user = await runCli(['admin', 'user', 'create', '--tenant', tenant.json.tenantId, '--name', 'Ana', '--email', 'ana@example.com', ...dd], env);
    assert.equal(user.code, 0, user.stderr);

    const serve = await startServe(['--port', '0', ...dd], env);
    try {
      // Created while the server runs: the CLI reaches the server's Postgres and waits for its projection.
      const key = await runCli(['admin', 'key', 'create', '--user', user.json.userId, '--permission', 'serff:view', ...dd], env);
      assert.equal(key.code, 0, key.stderr);
      assert.match(key.json.apiKey, /^ifrs_/);
      const me = await fetch(`${serve.url}/users/me`, { headers: { Authorization: `Bearer ${key.json.apiKey}` } });
      assert.equal(me.status, 200);
      assert.deepEqual(await me.json(), { id: user.json.userId, tenantId: tenant.json.tenantId, name: 'Ana', email: 'ana@example.com' });

      const second = await runCli(['serve', '--port', '0', ...dd], env, 60_000);
      assert.notEqual(second.code, 0);
      assert.match(second.stderr, /already running on the data directory/);

      const events = await runCli(['events', 'read', '--stream', `user-${user.json.userId}`, ...dd], env);
      assert.equal(events.json.events[0].type, 'UserCreated');
      assert.equal(events.json.events[0].metadata.actor, 'operator:cli');
      // Versions start at 1, so --from 0 reads from the start like the default (it used to be refused).
      const fromZero = await runCli(['events', 'read', '--stream', `user-${user.json.userId}`, '--from', '0', ...dd], env);
      assert.equal(fromZero.code, 0, fromZero.stderr);
      assert.deepEqual(fromZero.json, events.json);
      const fromJunk = await runCli(['events', 'read', '--stream', `user-${user.json.userId}`, '--from', '-1', ...dd], env);
      assert.notEqual(fromJunk.code, 0);
      assert.equal(fromJunk.stderr.trim().split('\n').length, 1, 'a one-line reason');
      const status = await runCli(['projections', 'status', ...dd], env);
      assert.ok(status.json.projections.some((p: { name: string }) => p.name === 'identity'));

      const bad = await runCli(['admin', 'grant', '--scope', 'mc:nope', '--user', user.json.userId, '--role', 'editor', ...dd], env);
      assert.notEqual(bad.code, 0);
      assert.equal(bad.stdout, '');
      assert.equal(bad.stderr.trim().split('\n').length, 1, 'a one-line reason');
    } finally {
      serve.child.kill('SIGTERM');
    }
    assert.equal(await serve.exited, 0, 'SIGTERM stops the service cleanly');
    const pid = postmasterPid(dataDir);
    assert.ok(pid === null || !alive(pid), 'and its Postgres with it');
  });

  it('rule (OPERATIONS.md serve: stops cleanly on SIGTERM; README: npm start / npm run dev): SIGTERM to the npm process stops the service and its Postgres', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-npm-'));
    // npm runs a script through sh, which does not pass a SIGTERM on: the scripts exec node instead.
    const npm = spawn('npm', ['run', '--silent', 'dev', '--', '--port', '0', '--data-dir', dir], {
      cwd: path.join(__dirname, '../..'),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((r) => npm.on('exit', (code) => r(code)));
    try {
      let out = '';
      npm.stdout.on('data', (d) => (out += d));
      await until(() => /listening on http/.test(out) || npm.exitCode !== null, () => `npm run dev starts the service: ${out}`, 120_000);
      assert.equal(npm.exitCode, null, `npm run dev starts the service: ${out}`);
      const pid = postmasterPid(dir);
      assert.ok(pid && alive(pid), 'the service started its Postgres');
      npm.kill('SIGTERM');
      await exited;
      await until(() => !alive(pid), () => 'the service stopped its Postgres after npm got SIGTERM', 30_000);
    } finally {
      if (npm.exitCode === null) npm.kill('SIGKILL');
      removeDataDir(dir);
    }
  });

  it('rule (OPERATIONS.md): CLI commands work while serve runs and while it does not: a serve started while a CLI command held the embedded Postgres keeps it after that command ends, and stops it when it stops', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-overlap-'));
    const d = ['--data-dir', dir];
    try {
      // The seed starts the embedded Postgres; serve starts while it runs and connects to that one.
      const seeding = runCli(['demo', 'seed', '--filings', '400', '--no-pdf', ...d], env, 170_000);
      await until(() => !!postmasterPid(dir) && alive(postmasterPid(dir)!), () => 'the seed started Postgres', 60_000);
      const serve = await startServe(['--port', '0', ...d], env);
      let exited: number | null;
      try {
        const seed = await seeding;
        assert.equal(seed.code, 0, seed.stderr);
        const me = await fetch(`${serve.url}/users/me`, { headers: { Authorization: `Bearer ${seed.json.apiKey}` } });
        assert.equal(me.status, 200, 'serve still has its database after the command that started it ended');
        const status = await runCli(['projections', 'status', ...d], env);
        assert.equal(status.code, 0, status.stderr);
      } finally {
        serve.child.kill('SIGTERM');
        exited = await serve.exited;
      }
      assert.equal(exited, 0, 'SIGTERM stops the service cleanly');
      const pid = postmasterPid(dir);
      assert.ok(pid === null || !alive(pid), 'and the Postgres it used, the last ifrs process on the data directory');
    } finally {
      removeDataDir(dir);
    }
  });

  it('rule (OPERATIONS.md serve --role): the roles run as separate processes on one embedded data directory; a second process of a role it already runs refuses', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-roles-'));
    const d = ['--data-dir', dir];
    const api = await startServe(['--port', '0', '--role', 'api', ...d], env);
    const projector = spawn(process.execPath, [path.join(__dirname, '../../bin/ifrs.js'), 'serve', '--role', 'projector', ...d], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const projectorExited = new Promise<number | null>((r) => projector.on('exit', (code) => r(code)));
    try {
      let err = '';
      projector.stderr.on('data', (b) => (err += b));
      await until(() => /running as projector/.test(err) || projector.exitCode !== null, () => `the projector role starts beside the api role: ${err}`, 60_000);
      assert.equal(projector.exitCode, null, `the projector role starts beside the api role: ${err}`);
      for (const role of ['api', 'all']) {
        const again = await runCli(['serve', '--port', '0', '--role', role, ...d], env, 60_000);
        assert.notEqual(again.code, 0, role);
        assert.match(again.stderr, /already running on the data directory/);
      }
      const tenant = await runCli(['admin', 'tenant', 'create', '--name', 'Roles', ...d], env);
      const user = await runCli(['admin', 'user', 'create', '--tenant', tenant.json.tenantId, '--name', 'Rui', ...d], env);
      const key = await runCli(['admin', 'key', 'create', '--user', user.json.userId, ...d], env);
      const me = await fetch(`${api.url}/users/me`, { headers: { Authorization: `Bearer ${key.json.apiKey}` } });
      assert.equal(me.status, 200);
    } finally {
      projector.kill('SIGTERM');
      api.child.kill('SIGTERM');
    }
    assert.equal(await projectorExited, 0);
    assert.equal(await api.exited, 0);
    const pid = postmasterPid(dir);
    assert.ok(pid === null || !alive(pid), 'the last of them stops the embedded Postgres');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('rule: a usage error (missing or unknown option, bad choice, unknown command, an argument the command does not take) exits non-zero with a one-line reason on stderr and nothing on stdout', async () => {
    for (const args of [
      ['admin', 'tenant', 'create'],
      // A bare projection name is not how rebuild names one (--only NAME): it used to be ignored and every
      // read model rebuilt.
      ['projections', 'rebuild', 'catalog'],
      ['projections', 'status', 'extra'],
      ['admin', 'tenant', 'create', '--name', 'X', '--bogus'],
      ['admin', 'grant', '--scope', 'mc:x', '--user', 'u', '--role', 'boss'],
      ['admin', 'nosuch'],
      ['nosuch'],
      ['admin'],
      [],
    ]) {
      const r = await runCli([...args, ...dd], env);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.equal(r.stdout, '', args.join(' '));
      assert.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: a one-line reason, got:\n${r.stderr}`);
      assert.match(r.stderr, /^ifrs: \S/, args.join(' '));
    }
  });

  it('rule (OPERATIONS.md): a failing command exits non-zero with a one-line reason on stderr: a data directory that cannot be created fails fast', async () => {
    const aFile = path.join(dataDir, 'a-file');
    fs.writeFileSync(aFile, '');
    for (const dir of ['/proc/nope-ifrs', aFile]) {
      for (const args of [['projections', 'status'], ['serve', '--port', '0']]) {
        const started = Date.now();
        const r = await runCli([...args, '--data-dir', dir], env, 30_000);
        const what = `${args[0]} --data-dir ${dir}`;
        assert.ok(Date.now() - started < 25_000, `${what}: fails fast`);
        assert.notEqual(r.code, 0, what);
        assert.equal(r.stdout, '', what);
        assert.equal(r.stderr.trim().split('\n').length, 1, `${what}: a one-line reason, got:\n${r.stderr}`);
        assert.match(r.stderr, new RegExp(`^ifrs: data directory ${dir.replace(/[/.]/g, '\\$&')}: `), what);
      }
    }
  });

  it('rule (OPERATIONS.md): stdout carries only the result and a failure is one line on stderr: an unreachable DATABASE_URL', async () => {
    const r = await runCli(['projections', 'status', ...dd], { ...env, DATABASE_URL: 'postgres://nobody:x@127.0.0.1:1/none' }, 60_000);
    assert.notEqual(r.code, 0);
    assert.equal(r.stdout, '', 'no driver warnings on stdout');
    assert.equal(r.stderr.trim().split('\n').length, 1, `a one-line reason, got:\n${r.stderr}`);
    assert.match(r.stderr, /^ifrs: .*ECONNREFUSED/);
  });

  it('rule: a database that stopped cleanly (its Unix socket removed) also gives 503 temporarily_unavailable, never a 500', async () => {
    const tenant = await runCli(['admin', 'tenant', 'create', '--name', 'C', ...dd], env);
    const user = await runCli(['admin', 'user', 'create', '--tenant', tenant.json.tenantId, '--name', 'Cy', ...dd], env);
    const key = await runCli(['admin', 'key', 'create', '--user', user.json.userId, ...dd], env);
    const serve = await startServe(['--port', '0', ...dd], env);
    try {
      const pid = postmasterPid(dataDir)!;
      process.kill(pid, 'SIGINT'); // fast shutdown: the socket file goes with it (connect: ENOENT)
      while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
      await new Promise((r) => setTimeout(r, 2100)); // past the key cache
      const r = await fetch(`${serve.url}/users/me`, { headers: { Authorization: `Bearer ${key.json.apiKey}` } });
      assert.equal(r.status, 503);
      assert.ok(r.headers.get('retry-after'));
      assert.equal(((await r.json()) as { code: string }).code, 'temporarily_unavailable');
    } finally {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
  });

  it('rule: an unreachable database gives 503 temporarily_unavailable with Retry-After, never a 500', async () => {
    const tenant = await runCli(['admin', 'tenant', 'create', '--name', 'B', ...dd], env);
    const user = await runCli(['admin', 'user', 'create', '--tenant', tenant.json.tenantId, '--name', 'Bo', ...dd], env);
    const key = await runCli(['admin', 'key', 'create', '--user', user.json.userId, ...dd], env);
    const serve = await startServe(['--port', '0', ...dd], env);
    try {
      process.kill(postmasterPid(dataDir)!, 'SIGKILL');
      await new Promise((r) => setTimeout(r, 500));
      const r = await fetch(`${serve.url}/users/me`, { headers: { Authorization: `Bearer ${key.json.apiKey}` } }).catch((e) => {
        throw new Error(`the server died with its database: ${e.message}\n${serve.stderr().split('\n').filter((l) => !l.includes('"level":30')).slice(-15).join('\n')}`);
      });
      assert.equal(r.status, 503);
      assert.ok(r.headers.get('retry-after'));
      const body = (await r.json()) as { code: string };
      assert.equal(body.code, 'temporarily_unavailable');
    } finally {
      serve.child.kill('SIGKILL');
      await serve.exited;
    }
  });
});
