import assert from 'node:assert/strict';
import { StreamStateCache } from '../../commands/stream-state-cache';

describe('stream state cache', () => {
  it('rule: of two writers of one stream finishing out of order, the newer state stays', () => {
    const c = new StreamStateCache<string>();
    c.set('s-1', 'v6', 6);
    c.set('s-1', 'v5', 5);
    assert.deepEqual(c.get('s-1'), { state: 'v6', version: 6 });
    c.set('s-1', 'v7', 7);
    assert.deepEqual(c.get('s-1'), { state: 'v7', version: 7 });
  });

  it('rule: bounded: the least recently used stream goes first', () => {
    const c = new StreamStateCache<number>(2);
    c.set('a', 1, 1);
    c.set('b', 2, 1);
    c.get('a');
    c.set('c', 3, 1);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a')?.state, 1);
    assert.equal(c.get('c')?.state, 3);
    c.delete('a');
    assert.equal(c.get('a'), undefined);
  });
});
