import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { CommandHandler } from '../../commands/command-handler';
import { withUpcasting } from '../../infra/eventstore/upcasting-event-store';
import { ProjectionEngine } from '../../projections/engine';
import type { EventCoverage, ProjectedEvent, ProjectionContext, Projector, TableNamer } from '../../projections/projector';
import type { Decider } from '../../src/domain/decider';
import { UpcasterRegistry, type Upcaster } from '../../src/domain/upcasting';
import type { Runtime } from '../../src/runtime';
import { createLogger } from '../../src/util/logger';
import { runtimeWithProjectors } from '../support/stream-counting-projector';

/** A note's schema history: v1 `{ body }`, v2 `{ text }`, v3 (current) `{ text, tags }`. */
type NoteEvent = { type: 'NoteTaken'; data: { text: string; tags: string[] } } | { type: 'NoteDropped'; data: Record<string, never> };

const UPCASTERS: Upcaster<NoteEvent>[] = [
  { type: 'NoteTaken', from: 1, up: (d) => ({ text: (d as { body: string }).body }) },
  { type: 'NoteTaken', from: 2, up: (d, e) => ({ ...(d as { text: string }), tags: [`by:${e.metadata.actor}`] }) },
];

const HANDLES = { NoteTaken: 'applied', NoteDropped: 'ignored' } as const satisfies EventCoverage<NoteEvent>;

/** Keeps each note as its projector sees it, with the schema version it arrived at. */
class NotesProjector implements Projector<NoteEvent, typeof HANDLES> {
  readonly name = 'test-notes';
  readonly version = 1;
  readonly tables = ['test_notes'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`create table ${t('test_notes')} (stream_id text not null, version int not null, text text not null, tags jsonb not null, schema_version int not null, primary key (stream_id, version))`);
  }

  async apply({ trx, table }: ProjectionContext, events: ProjectedEvent<NoteEvent, typeof HANDLES>[]): Promise<void> {
    for (const e of events)
      await trx(table('test_notes')).insert({ stream_id: e.streamId, version: e.version, text: e.data.text, tags: JSON.stringify(e.data.tags), schema_version: e.schemaVersion });
  }
}

const noteDecider: Decider<{ texts: string[] }, never, NoteEvent> = {
  initialState: () => ({ texts: [] }),
  evolve: (s, e) => (e.type === 'NoteTaken' ? { texts: [...s.texts, `${e.data.text} ${e.data.tags.join(',')}`] } : s),
  decide: () => [],
};

describe('upcasting: old events read at their current schema', () => {
  let rt: Runtime;
  before(async () => (rt = await runtimeWithProjectors([], 'ifrs-upcasting-')));
  after(async () => rt.close());

  it('rule: an event appended at an old schema version reaches a projector (through the engine) and a decider upcast to its current version; new events are written at it', async () => {
    const stream = `note-${crypto.randomUUID()}`;
    // Appended directly, as an earlier release wrote it.
    await rt.store.append(stream, [{ type: 'NoteTaken', data: { body: 'old' }, schemaVersion: 1 }], 0, { actor: 'u1' });
    const store = withUpcasting(rt.store, new UpcasterRegistry(UPCASTERS));
    await store.append(stream, [{ type: 'NoteTaken', data: { text: 'new', tags: ['t'] } }], 1, { actor: 'u2' });

    const engine = new ProjectionEngine(rt.db.knex, store, [new NotesProjector()], createLogger('silent'));
    await engine.ensureSchemas();
    await engine.catchUp();
    const rows = await rt.db.knex('test_notes').where({ stream_id: stream }).orderBy('version').select('text', 'tags', 'schema_version');
    assert.deepEqual(rows, [
      { text: 'old', tags: ['by:u1'], schema_version: 3 },
      { text: 'new', tags: ['t'], schema_version: 3 },
    ]);

    const stored = await rt.db.knex('es_events').where({ stream_id: stream }).orderBy('version').select('schema_version', 'data');
    assert.deepEqual(stored, [
      { schema_version: 1, data: { body: 'old' } },
      { schema_version: 3, data: { text: 'new', tags: ['t'] } },
    ]);

    const loaded = await new CommandHandler(store, null, createLogger('silent')).load(noteDecider, stream);
    assert.deepEqual(loaded.state.texts, ['old by:u1', 'new t']);
  });
});
