import assert from 'node:assert/strict';
import type { NewEvent, RecordedEvent } from '../../src/domain/events';
import { UpcasterRegistry, type Upcaster } from '../../src/domain/upcasting';

/** A note's schema history: v1 `{ body }`, v2 `{ text }`, v3 (current) `{ text, tags }`. */
type NoteEvent = { type: 'NoteTaken'; data: { text: string; tags: string[] } } | { type: 'NoteDropped'; data: { id: string } };

const toV2: Upcaster<NoteEvent> = { type: 'NoteTaken', from: 1, up: (d) => ({ text: (d as { body: string }).body }) };
const toV3: Upcaster<NoteEvent> = { type: 'NoteTaken', from: 2, up: (d, e) => ({ ...(d as { text: string }), tags: [`by:${e.metadata.actor}`] }) };

function recorded(type: string, schemaVersion: number, data: unknown): RecordedEvent {
  return { eventId: 'e1', streamId: 'note-1', version: 1, type, schemaVersion, data, metadata: { actor: 'u1' }, position: { commit: 1n, prepare: 1n }, recordedAt: new Date(0) };
}

describe('upcasting: the registry', () => {
  const registry = new UpcasterRegistry([toV3, toV2]);

  it('rule: an event of an old schema version is read upcast step by step (n to n + 1) to its type\'s current version, the rest of it kept', () => {
    const old = recorded('NoteTaken', 1, { body: 'hello' });
    const up = registry.upcast(old);
    assert.deepEqual(up, { ...old, schemaVersion: 3, data: { text: 'hello', tags: ['by:u1'] } });
    assert.deepEqual(registry.upcast(recorded('NoteTaken', 2, { text: 'hi' })).data, { text: 'hi', tags: ['by:u1'] });
    assert.deepEqual(old.data, { body: 'hello' }, 'the event read is not changed in place');
  });

  it('rule: an event at its current version, newer than the code knows, or of a type without upcasters is read as it is', () => {
    for (const e of [recorded('NoteTaken', 3, { text: 'x', tags: [] }), recorded('NoteTaken', 4, { text: 'x', tags: [], pinned: true }), recorded('NoteDropped', 1, { id: 'n' })])
      assert.equal(registry.upcast(e), e);
  });

  it('rule: a type\'s current schema version is 1 + its steps; new events are written at it unless they name one', () => {
    assert.equal(registry.currentVersion('NoteTaken'), 3);
    assert.equal(registry.currentVersion('NoteDropped'), 1);
    assert.equal(registry.stamp<NewEvent>({ type: 'NoteTaken', data: { text: 'x', tags: [] } }).schemaVersion, 3);
    assert.equal(registry.stamp<NewEvent>({ type: 'NoteTaken', data: {}, schemaVersion: 2 }).schemaVersion, 2);
    assert.equal(registry.stamp<NewEvent>({ type: 'NoteDropped', data: { id: 'n' } }).schemaVersion, undefined);
  });

  it('rule: a type\'s steps run from version 1 without gaps or repeats (otherwise the registry refuses to exist)', () => {
    assert.throws(() => new UpcasterRegistry([toV3]), /expected a step from version 1, got one from 2/);
    assert.throws(() => new UpcasterRegistry([toV2, toV2]), /expected a step from version 2, got one from 1/);
    assert.equal(new UpcasterRegistry([toV2]).currentVersion('NoteTaken'), 2);
  });
});
