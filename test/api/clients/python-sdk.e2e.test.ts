import assert from 'node:assert/strict';
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import path from 'node:path';
import { ensurePythonEnv, PYTHON_DIR } from '../../../clients/python-env';
import { catalogFiling, importRecords } from '../../support/catalog-records';
import { makeCaller, startTestRuntime, type TestRuntime } from '../../support/runtime';

describe('Python SDK (clients/python) against the real service', function () {
  this.timeout(300_000);
  let t: TestRuntime;
  let python: string;

  before(async () => {
    // The first run makes clients/python/.venv from PyPI (some 20 s); later runs reuse it.
    python = ensurePythonEnv();
    t = await startTestRuntime();
  });
  after(async () => t?.close());

  it('rule: the Python client authenticates, pages to the end, raises typed errors and retries (its unittest suite passes)', async () => {
    const caller = await makeCaller(t.rt);
    const records = Array.from({ length: 5 }, () => catalogFiling({ state: 'FL' }));
    const r = await importRecords(t.rt, records);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
    // Asynchronous: the service answering the client runs in this very process.
    const run = await promisify(execFile)(python, ['-m', 'unittest', '-v', 'tests.test_against_server'], {
      cwd: PYTHON_DIR,
      timeout: 120_000,
      env: {
        ...process.env,
        PYTHONDONTWRITEBYTECODE: '1',
        IFRS_BASE_URL: t.baseUrl,
        IFRS_API_KEY: caller.apiKey,
        IFRS_USER_ID: caller.userId,
        IFRS_FL_FILING_IDS: records.map((f) => String(f.id)).join(','),
      },
    }).catch((e: { stdout?: string; stderr?: string; message: string }) => {
      assert.fail(`python -m unittest in ${path.relative(process.cwd(), PYTHON_DIR)} failed: ${e.message}\n${e.stdout}\n${e.stderr}`);
    });
    assert.match(run.stderr, /Ran 6 tests/);
    assert.match(run.stderr, /\nOK\s*$/);
  });
});

describe('SDKs are generated from the served document', function () {
  this.timeout(300_000);
  it('rule: clients/openapi.json, schema.d.ts and models.py equal a fresh generation (npm run clients:generate)', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', path.join(__dirname, '../../../clients/generate.ts'), '--check'], { encoding: 'utf8' });
    assert.equal(run.status, 0, `${run.stdout}\n${run.stderr}`);
  });
});
