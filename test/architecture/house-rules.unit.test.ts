import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

function filesUnder(dir: string, keep: (file: string) => boolean, out: string[] = []): string[] {
  for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = path.join(dir, e.name);
    if (e.isDirectory()) {
      if (!['node_modules', 'fixtures', '.cache'].includes(e.name)) filesUnder(rel, keep, out);
    } else if (keep(rel)) out.push(rel);
  }
  return out;
}

describe('house rules (issue 21)', () => {
  it('rule: every test file has its tier suffix (.unit, .int or .e2e before .test.ts)', () => {
    const tests = filesUnder('test', (f) => f.endsWith('.test.ts'));
    assert.ok(tests.length > 100, `only ${tests.length} test files found`);
    assert.deepEqual(tests.filter((f) => !/\.(unit|int|e2e)\.test\.ts$/.test(f)), []);
  });

  it('rule: no test sits in a catch-all folder: each is under a folder of the code it tests, test/api, test/cli or test/architecture', () => {
    const allowed = /^test\/(domain|ports|util|read-models|http|wiring|commands|projections|queries|infra|api|cli|architecture|docs|bench)\//;
    const tests = filesUnder('test', (f) => f.endsWith('.test.ts'));
    assert.deepEqual(tests.filter((f) => !allowed.test(f)), []);
  });

  it('rule: no source file is over 400 lines (a file does one job)', () => {
    const sources = ['src', 'commands', 'projections', 'queries', 'infra', 'scripts'].flatMap((d) => filesUnder(d, (f) => f.endsWith('.ts')));
    assert.ok(sources.length > 200, `only ${sources.length} source files found`);
    const long = sources.map((f) => [f, fs.readFileSync(path.join(ROOT, f), 'utf8').split('\n').length - 1] as const).filter(([, n]) => n > 400);
    assert.deepEqual(long, []);
  });
});
