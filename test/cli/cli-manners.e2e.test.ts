import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli';

const BIN = path.join(__dirname, '../../bin/ifrs.js');
const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Runs `ifrs` on a pseudo-terminal (util-linux `script`), as a person at a terminal would: stdout and stderr
 * are both the terminal, so the output holds the result and the progress together.
 */
function runOnTerminal(args: string[], env: NodeJS.ProcessEnv, timeoutMs = 120_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const line = [process.execPath, BIN, ...args].map(quote).join(' ');
    const child = spawn('script', ['-qec', line, '/dev/null'], { env: { ...process.env, ...env, COLUMNS: '160' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

describe('the ifrs command line: version, numbers, tables, progress, data directory', function () {
  this.timeout(180_000);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-cli-manners-'));
  // The embedded Postgres runs as its own user when the tests run as root: it must reach the data directory.
  fs.chmodSync(work, 0o711);
  const dd = ['--data-dir', path.join(work, 'data')];
  const env = { DATABASE_URL: '', IFRS_DATA_DIR: '', KAFKA_BROKERS: '', ELASTICSEARCH_URL: '', ESDB_URL: '' };
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('rule: --version prints the package version and exits 0', async () => {
    const r = await runCli(['--version'], env);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(r.stdout.trim(), (JSON.parse(fs.readFileSync(path.join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version);
  });

  it('rule: a number that is not one, or out of range, is a usage error: one line naming the option, exit 2', async () => {
    for (const [args, option] of [
      [['serve', '--port', '70000'], '--port'],
      [['serve', '--port', 'http'], '--port'],
      [['import', 'x.jsonl', '--concurrency', '0'], '--concurrency'],
      [['demo', 'seed', '--filings', 'ten'], '--filings'],
      [['demo', 'generate', '--out', work, '--seed', '-1'], '--seed'],
      [['events', 'read', '--stream', 'user-x', '--from', 'first'], '--from'],
    ] as const) {
      const r = await runCli([...args, ...dd], env);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
      // A flag that sets a configuration value (--port) is named by the configuration check, the others by their parser.
      assert.match(r.stderr, new RegExp(`^ifrs: (option '${option} <[a-z]+>' argument '.*' is invalid\\. expected a whole number|invalid ${option} ".*": expected an integer)`));
    }
  });

  it('rule: on a terminal, generate, import --wait and rebuild show progress with rate and ETA, and results are tables; --json and pipes get the JSON', async () => {
    const gen = path.join(work, 'gen');
    const generated = await runOnTerminal(['demo', 'generate', '--out', gen, '--filings', '300', '--no-pdf'], env);
    assert.equal(generated.code, 0, generated.output);
    assert.match(generated.output, /generate \[.*\] \d+% .* filings\/s \| ETA /);
    assert.match(generated.output, /│ records\s*│ \d+/, 'the result as a table');

    const imported = await runOnTerminal(['import', path.join(gen, 'demo.jsonl'), '--wait', ...dd], env);
    assert.equal(imported.code, 0, imported.output);
    assert.match(imported.output, /import \[.*\] \d+% .* bytes\/s \| ETA /);
    assert.match(imported.output, /catch-up \[.*\] \d+% .* events\/s \| ETA /, 'the --wait catch-up has its own bar');
    assert.match(imported.output, /│ imported\s*│ \d+/);

    const rebuilt = await runOnTerminal(['projections', 'rebuild', '--only', 'catalog', ...dd], env);
    assert.equal(rebuilt.code, 0, rebuilt.output);
    assert.match(rebuilt.output, /rebuild catalog \[.*\] \d+% .* events\/s \| ETA /);

    const table = await runOnTerminal(['projections', 'status', ...dd], env);
    assert.match(table.output, /projections \(\d+\)/);
    assert.match(table.output, /│ catalog\s*│/);
    const json = await runOnTerminal(['projections', 'status', '--json', ...dd], env);
    assert.equal(json.code, 0, json.output);
    assert.ok((JSON.parse(json.output.trim()) as { projections: { name: string }[] }).projections.some((p) => p.name === 'catalog'));

    const piped = await runCli(['demo', 'generate', '--out', gen, '--filings', '300', '--no-pdf'], env);
    assert.equal(piped.code, 0, piped.stderr);
    assert.ok((piped.json as { records: number }).records > 300, 'stdout that is not a terminal gets the one JSON object');
    assert.doesNotMatch(piped.stderr, /ETA/, 'no bar where stderr is not a terminal');
  });

  it('rule: a data directory below a folder the Postgres user cannot enter is explained in one line naming the folder and the fix', async () => {
    const closed = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-closed-')); // 0700, as mktemp -d makes it
    try {
      const dataDir = path.join(closed, 'data');
      const r = await runCli(['projections', 'status', '--data-dir', dataDir], env, 60_000);
      if (process.getuid?.() === 0) {
        // As root the embedded Postgres runs as the user postgres, which cannot enter `closed`.
        assert.equal(r.code, 1);
        assert.equal(r.stdout, '');
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.equal(r.stderr.trim(), `ifrs: data directory ${dataDir}: the embedded Postgres runs as the user "postgres", which cannot enter ${closed} (mode 0700); let it through (chmod o+x ${closed}) or use a --data-dir outside it`);
      } else {
        // Not root: Postgres runs as this user, who owns `closed`: nothing to explain.
        assert.equal(r.code, 0, r.stderr);
      }
    } finally {
      fs.rmSync(closed, { recursive: true, force: true });
    }
  });
});
