import assert from 'node:assert/strict';
import { DEFAULT_HEAP_GROWTH_PERCENT, boundHeapGrowth } from '../../src/util/heap-growth';

describe('serve: bounded heap growth', () => {
  const run = (env: NodeJS.ProcessEnv, execArgv: string[] = []) => {
    const set: string[] = [];
    const applied = boundHeapGrowth(env, execArgv, (f) => set.push(f));
    return { applied, set };
  };

  it('rule: serve bounds V8 heap growth by default, so a steady load does not pile garbage up to 4x the live heap', () => {
    assert.deepEqual(run({}), { applied: DEFAULT_HEAP_GROWTH_PERCENT, set: [`--heap-growing-percent=${DEFAULT_HEAP_GROWTH_PERCENT}`] });
  });

  it('rule: IFRS_HEAP_GROWTH_PERCENT sets the bound; 0 or nonsense leaves V8 its own choice', () => {
    assert.deepEqual(run({ IFRS_HEAP_GROWTH_PERCENT: '50' }).set, ['--heap-growing-percent=50']);
    for (const v of ['0', '-5', 'lots', '1.5']) assert.deepEqual(run({ IFRS_HEAP_GROWTH_PERCENT: v }), { applied: null, set: [] }, v);
  });

  it('rule: an operator\'s own --heap-growing-percent (node flags or NODE_OPTIONS) wins', () => {
    assert.deepEqual(run({}, ['--heap-growing-percent=30']).set, []);
    assert.deepEqual(run({ NODE_OPTIONS: '--max-old-space-size=512 --heap_growing_percent=30' }).set, []);
  });
});
