import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { importFile } from '../../../commands/import/import-file';
import type { RecordImporter } from '../../../commands/import/record-importer';

/** Keeps every record it is given, in the order the import hands them over. */
function collector(): RecordImporter & { seen: Record<string, unknown>[] } {
  const seen: Record<string, unknown>[] = [];
  return { types: ['note'], projections: [], seen, import: async (r) => (seen.push(r), { status: 'created' }) };
}

describe('import: reading the lines of a file', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-lines-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('rule: lines longer than a read chunk and multi-byte characters across chunk boundaries arrive whole, CRLF and a last line without newline included', async () => {
    // 'é' and '€' are 2 and 3 bytes: at these lengths some of them straddle the 256 KiB read boundaries.
    const long = 'é€x'.repeat(150_000);
    const texts = ['first', long, 'ü'.repeat(70_001), 'crlf', 'last'];
    const body = texts.map((t, i) => JSON.stringify({ type: 'note', id: String(i), t }) + (t === 'crlf' ? '\r\n' : t === 'last' ? '' : '\n')).join('');
    const file = path.join(dir, 'notes.jsonl');
    fs.writeFileSync(file, '\n' + body);
    const imp = collector();
    const r = await importFile(file, { importers: [imp], concurrency: 1 });
    assert.deepEqual({ imported: r.imported, failed: r.failed }, { imported: texts.length, failed: 0 });
    assert.deepEqual(imp.seen.map((x) => x.t), texts);
  });

  it('rule: a bad line is reported with its line number counted from the file start (blank lines count)', async () => {
    const file = path.join(dir, 'bad.jsonl');
    fs.writeFileSync(file, `${JSON.stringify({ type: 'note', id: 'a' })}\n\n{not json\n${JSON.stringify({ type: 'note', id: 'b' })}\n`);
    const r = await importFile(file, { importers: [collector()] });
    assert.equal(r.imported, 2);
    assert.deepEqual(r.errors.map((e) => e.line), [3]);
  });
});

describe('import: records that share a sequence key run in file order', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-seq-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  /** Records name their sequence keys in `keys`; the first line takes longest, so without ordering it would finish last. */
  function timed(): RecordImporter & { log: string[] } {
    const log: string[] = [];
    return {
      types: ['note'],
      projections: [],
      log,
      sequenceKeys: (r) => (r.keys as string[]) ?? [],
      import: async (r) => {
        log.push(`start ${String(r.id)}`);
        await new Promise((res) => setTimeout(res, Number(r.ms)));
        log.push(`end ${String(r.id)}`);
        return { status: 'created' };
      },
    };
  }

  it('rule: a record sharing a key (a file id) with an earlier line starts only after that line finished; records without a shared key still run side by side', async () => {
    const file = path.join(dir, 'notes.jsonl');
    const notes = [
      { type: 'note', id: 'a', ms: 40, keys: ['file-1'] },
      { type: 'note', id: 'b', ms: 1, keys: ['file-2'] },
      { type: 'note', id: 'c', ms: 1, keys: ['file-2', 'file-1'] },
    ];
    fs.writeFileSync(file, notes.map((n) => JSON.stringify(n)).join('\n'));
    const imp = timed();
    const r = await importFile(file, { importers: [imp] });
    assert.equal(r.imported, 3);
    // b is not held up by a; c waits for both.
    assert.ok(imp.log.indexOf('end b') < imp.log.indexOf('end a'), imp.log.join(', '));
    assert.ok(imp.log.indexOf('start c') > imp.log.indexOf('end a'), imp.log.join(', '));
    assert.ok(imp.log.indexOf('start c') > imp.log.indexOf('end b'), imp.log.join(', '));
  });
});
