import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli';

describe('ifrs validates its configuration before it starts anything', function () {
  this.timeout(60_000);
  let dataDir: string;
  // The embedded default, which a start would bring up in the data directory.
  const env = { DATABASE_URL: '', IFRS_DATA_DIR: '', KAFKA_BROKERS: '', ELASTICSEARCH_URL: '', ESDB_URL: '' };
  beforeEach(() => (dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-config-'))));
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  /** What a start leaves in the data directory: the embedded cluster, its lock and users, the serve locks. */
  const started = () => fs.readdirSync(dataDir).filter((f) => f === 'pg' || f.startsWith('pg-') || f.startsWith('serve-'));

  it('rule: `serve --port abc` exits 2 at once with one line naming the flag, and Postgres is not started', async () => {
    const t0 = Date.now();
    const r = await runCli(['serve', '--port', 'abc', '--data-dir', dataDir], env, 30_000);
    assert.equal(r.code, 2, r.stderr);
    assert.equal(r.stderr, 'ifrs: invalid --port "abc": expected an integer 0-65535 (0: any free port)\n');
    assert.equal(r.stdout, '');
    assert.deepEqual(started(), []);
    // A bound for "before anything starts" (starting the embedded cluster alone takes seconds), not a speed goal.
    assert.ok(Date.now() - t0 < 15_000, `${Date.now() - t0} ms`);
  });

  it('rule: a bad environment variable is named the same way, for serve and for every other command', async () => {
    for (const [args, extra, line] of [
      [['serve'], { PORT: '70000' }, 'ifrs: invalid PORT "70000": expected an integer 0-65535 (0: any free port)\n'],
      [['projections', 'status'], { KAFKA_BROKERS: 'nohostport' }, 'ifrs: invalid KAFKA_BROKERS "nohostport": expected a comma-separated list of host:port\n'],
      [['events', 'read', '--stream', 'x', '--from', 'one'], {}, "ifrs: option '--from <version>' argument 'one' is invalid. expected a whole number of at least 0.\n"],
      [['import', 'missing.jsonl', '--concurrency', '0'], {}, "ifrs: option '--concurrency <n>' argument '0' is invalid. expected a whole number from 1 to 100000.\n"],
      [['serve', '--role', 'chef'], {}, null],
    ] as [string[], Record<string, string>, string | null][]) {
      const r = await runCli([...args, '--data-dir', dataDir], { ...env, ...extra }, 30_000);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      if (line) assert.equal(r.stderr, line);
      else assert.match(r.stderr, /^ifrs: option '--role <role>' argument 'chef' is invalid\. Allowed choices are /);
      assert.deepEqual(started(), [], args.join(' '));
    }
  });
});
