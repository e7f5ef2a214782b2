import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import type { Command, Option } from 'commander';
import { buildCli } from '../../src/cli/main';
import { wholeNumber } from '../../src/cli/numbers';
import { startProgress } from '../../src/cli/progress';
import { renderTables } from '../../src/cli/tables';
import { firstUnreachable } from '../../infra/postgres/data-dir-reach';

function allCommands(c: Command): Command[] {
  return [c, ...c.commands.flatMap(allCommands)];
}

describe('the ifrs command line, without I/O', () => {
  it('rule: every command and every option is described, and each required option says so in --help', () => {
    const program = buildCli();
    for (const cmd of allCommands(program)) {
      const name = cmd.name();
      assert.ok(cmd.description().trim(), `command ${name} has a description`);
      for (const o of cmd.options as Option[]) {
        assert.ok(o.description.trim(), `${name} ${o.flags} has a description`);
        if (o.mandatory) assert.match(cmd.createHelp().optionDescription(o), /\(required\)$/, `${name} ${o.flags} is marked required in --help`);
      }
    }
    const keyCreate = program.commands.find((c) => c.name() === 'admin')!.commands.find((c) => c.name() === 'key')!.commands.find((c) => c.name() === 'create')!;
    assert.ok((keyCreate.options as Option[]).some((o) => o.long === '--user' && o.mandatory), 'key create --user is a required option');
  });

  it('rule: numbers are parsed and checked: anything but a whole number in range is refused with the range', () => {
    const port = wholeNumber(0, 65535);
    assert.equal(port('8080'), 8080);
    assert.equal(port('0'), 0);
    for (const bad of ['', 'abc', '-1', '1.5', '1e3', '65536', '0x10', ' ']) assert.throws(() => port(bad), /whole number from 0 to 65535/, JSON.stringify(bad));
    assert.throws(() => wholeNumber(1)('0'), /at least 1/);
    assert.throws(() => wholeNumber(0)('99999999999999999999'), /at least 0/);
  });

  it('rule: a result on a terminal is tables: plain fields in one, each list of records in its own, with every value', () => {
    const text = renderTables({ projections: [{ name: 'catalog', position: 12, lag: 0 }, { name: 'identity', position: 7, lag: 5 }], head: 12 });
    assert.match(text, /head\s*│\s*12/);
    assert.match(text, /projections \(2\)/);
    for (const v of ['name', 'position', 'lag', 'catalog', 'identity']) assert.ok(text.includes(v), v);
    assert.ok(!text.includes('{'), 'no JSON for flat records');
    const nested = renderTables({ imported: 3, failed: 1, errors: [{ line: 2, message: 'bad' }], rebuilt: ['a', 'b'] });
    assert.match(nested, /rebuilt\s*│\s*a, b/);
    assert.match(nested, /errors \(1\)/);
  });

  it('rule: progress shows the rate and an ETA, and only on a terminal', () => {
    const tty = Object.assign(new PassThrough(), { isTTY: true, columns: 120, cursorTo: () => true, clearLine: () => true, moveCursor: () => true }) as unknown as NodeJS.WriteStream;
    let out = '';
    (tty as unknown as PassThrough).on('data', (d: Buffer) => (out += d.toString()));
    const bar = startProgress('import', 'bytes', 1000, tty)!;
    bar.update(0);
    bar.update(500);
    bar.stop();
    assert.match(out, /import \[/);
    assert.match(out, /bytes\/s/);
    assert.match(out, /ETA /);
    const pipe = Object.assign(new PassThrough(), { isTTY: false }) as unknown as NodeJS.WriteStream;
    assert.equal(startProgress('import', 'bytes', 1000, pipe), null);
  });

  it('rule: a folder on the way to the data directory that the postgres user cannot enter is found, with its mode', () => {
    const modes: Record<string, { mode: number; uid: number; gid: number }> = {
      '/': { mode: 0o40755, uid: 0, gid: 0 },
      '/tmp': { mode: 0o41777, uid: 0, gid: 0 },
      '/tmp/tmp.x': { mode: 0o40700, uid: 0, gid: 0 },
      '/tmp/tmp.x/data': { mode: 0o40711, uid: 0, gid: 0 },
      '/srv': { mode: 0o40750, uid: 0, gid: 70 },
      '/srv/pg': { mode: 0o40700, uid: 70, gid: 70 },
    };
    const stat = (p: string) => modes[p];
    const postgres = { uid: 70, gid: 70 };
    assert.deepEqual(firstUnreachable('/tmp/tmp.x/data', postgres, stat), { dir: '/tmp/tmp.x', mode: 0o700 });
    assert.deepEqual(firstUnreachable('/tmp/tmp.x/data', null, stat), { dir: '/tmp/tmp.x', mode: 0o700 });
    assert.equal(firstUnreachable('/srv/pg', postgres, stat), null, 'by group and by owner');
    assert.deepEqual(firstUnreachable('/srv/pg', null, stat), { dir: '/srv', mode: 0o750 }, 'a user not created yet is an other');
  });
});
