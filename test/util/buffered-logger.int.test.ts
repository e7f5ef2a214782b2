import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';

const ROOT = path.join(__dirname, '../..');

/** Runs a child that logs through the server's buffered logger; resolves with the stderr lines seen at each mark. */
function runChild(script: string): Promise<{ lines: string[]; at: number }[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', 'tsx/cjs', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    const marks: { lines: string[]; at: number }[] = [];
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      for (const m of d.toString().split('\n').filter(Boolean)) marks.push({ lines: err.split('\n').filter(Boolean), at: Number(m) });
    });
    child.on('error', reject);
    child.on('close', () => {
      marks.push({ lines: err.split('\n').filter(Boolean), at: -1 });
      resolve(marks);
    });
  });
}

describe('the server logger (buffered)', function () {
  this.timeout(30_000);

  it('rule: a buffered line reaches stderr within the flush interval without further logging, and every line is written at exit', async () => {
    const marks = await runChild(`
      const { createLogger } = require('./src/util/logger');
      const log = createLogger('info', { buffered: true });
      log.info({ n: 1 }, 'first');
      setTimeout(() => {
        process.stdout.write('1\\n');
        for (let i = 0; i < 5; i++) log.info({ n: 2 + i }, 'more');
        process.exit(0);
      }, 1000);
    `);
    assert.equal(marks[0].at, 1);
    assert.deepEqual(marks[0].lines.map((l) => JSON.parse(l).msg), ['first']);
    const atExit = marks[marks.length - 1].lines.map((l) => JSON.parse(l).n);
    assert.deepEqual(atExit, [1, 2, 3, 4, 5, 6]);
  });
});
