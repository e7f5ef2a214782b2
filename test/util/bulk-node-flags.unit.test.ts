import assert from 'node:assert/strict';
import { BULK_NODE_FLAGS, bulkFlagsToAdd } from '../../src/util/bulk-node-flags';
import { bulkRelaunchArgs } from '../../src/cli/relaunch';

describe('bulk node flags (ifrs import runs with a larger young generation)', () => {
  it('an import without them is started again with them, keeping its own node flags and arguments', () => {
    assert.deepEqual(bulkRelaunchArgs(['node', 'bin/ifrs.js', 'import', 'f.jsonl', '--wait'], 'bin/ifrs.js', {}, ['--enable-source-maps']), [
      '--enable-source-maps',
      ...BULK_NODE_FLAGS,
      'bin/ifrs.js',
      'import',
      'f.jsonl',
      '--wait',
    ]);
  });

  it('an import that already has them runs as it is (no second relaunch)', () => {
    assert.equal(bulkRelaunchArgs(['node', 'bin/ifrs.js', 'import', 'f.jsonl'], 'bin/ifrs.js', {}, [...BULK_NODE_FLAGS]), null);
  });

  it('other commands run as they are (serve keeps the default young generation)', () => {
    assert.equal(bulkRelaunchArgs(['node', 'bin/ifrs.js', 'serve'], 'bin/ifrs.js', {}, []), null);
  });

  it("an operator's own young-generation size wins, on the command line or in NODE_OPTIONS", () => {
    assert.deepEqual(bulkFlagsToAdd({}, ['--max-semi-space-size=8']), []);
    assert.deepEqual(bulkFlagsToAdd({ NODE_OPTIONS: '--max_semi_space_size=32' }, []), []);
    assert.deepEqual(bulkFlagsToAdd({}, []), [...BULK_NODE_FLAGS]);
  });

  it('IFRS_BULK_NODE_FLAGS=0 turns them off', () => {
    assert.deepEqual(bulkFlagsToAdd({ IFRS_BULK_NODE_FLAGS: '0' }, []), []);
  });
});
