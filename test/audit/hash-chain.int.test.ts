import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { eventStoreForSuite } from '../support/postgres';
import { appendMany } from '../../infra/eventstore/postgres-bulk-append';
import { verifyChains, verifyStream, type StreamVerdict } from '../../infra/eventstore/chain-audit';
import { backfillChains } from '../../infra/postgres/migrations/012_event_hash_chains';
import { eventHash, withoutHashes } from '../../src/domain/event-hash';

const GUARD = { sql: `select $1::boolean as ok` };
const ev = (n: number, tag = 'e') => Array.from({ length: n }, (_, i) => ({ type: 'Chained', data: { tag, i, text: `naïve "${i}" \\ ✓` }, schemaVersion: 1 + (i % 2) }));

describe('tamper evidence: every Postgres append path chains its events', () => {
  const fixture = eventStoreForSuite();
  const stream = (c = 'chain') => `${c}-${crypto.randomUUID()}`;

  /** Each stored event's hash recomputed in node from what a reader gets, and the stream head. */
  async function assertChained(streamId: string, versions: number) {
    const events = await fixture.store.readStream(streamId);
    assert.deepEqual(events.map((e) => e.version), Array.from({ length: versions }, (_, i) => i + 1));
    let prev: string | null = null;
    for (const e of events) {
      assert.equal(e.metadata.prevHash, prev, `prevHash of ${e.version}`);
      const h = eventHash({ ...e, metadata: withoutHashes(e.metadata), recordedAt: e.recordedAt.toISOString(), prevHash: prev });
      assert.equal(e.metadata.hash, h, `hash of ${e.version}`);
      prev = h;
    }
    assert.deepEqual(await fixture.store.streamHead(streamId), { version: versions, headHash: prev });
    assert.deepEqual(await verifyStream(fixture.store, streamId), { version: versions, headHash: prev, verified: true, firstBrokenVersion: null });
  }

  it('rule: single and several events, at a new, an exact and any version, guarded or not, each chain on the previous hash', async () => {
    const s = stream();
    await fixture.store.append(s, ev(1), 0, { actor: 'a', prevHash: 'forged', hash: 'forged' });
    await fixture.store.append(s, ev(3), 1, { actor: 'a' });
    await fixture.store.append(s, ev(1), 'any', { actor: 'b' });
    await fixture.store.append(s, ev(2), 'any', {});
    await fixture.store.appendGuarded(s, ev(1), 7, { actor: 'g' }, { ...GUARD, values: [true] });
    await fixture.store.appendGuarded(s, ev(2), 8, { actor: 'g' }, { ...GUARD, values: [true] });
    await fixture.store.appendGuarded(s, ev(2), 'any', { actor: 'g' }, { ...GUARD, values: [true] });
    await assertChained(s, 12);
    const many = stream();
    await fixture.store.append(many, ev(4), 'any', {});
    await assertChained(many, 4);
    const guardedNew = stream();
    await fixture.store.appendGuarded(guardedNew, ev(2), 0, {}, { ...GUARD, values: [true] });
    await assertChained(guardedNew, 2);
  });

  it('rule: appends made at once (one batch, one commit) chain each stream on its own head', async () => {
    const streams = [stream(), stream(), stream()];
    await Promise.all(streams.map((s) => fixture.store.append(s, ev(1), 0, {})));
    await Promise.all(streams.flatMap((s, i) => [fixture.store.append(s, ev(i + 1), 1, { i })]));
    await Promise.all(streams.map((s) => fixture.store.append(s, ev(1), 'any', {})));
    for (const [i, s] of streams.entries()) await assertChained(s, i + 3);
  });

  it('rule: the bulk import path (appendMany) chains new and existing streams', async () => {
    const fresh = stream();
    const existing = stream();
    await fixture.store.append(existing, ev(2), 0, {});
    await fixture.db.knex.transaction((trx) =>
      appendMany(trx, [
        { streamId: fresh, expected: 0, events: ev(3).map((event) => ({ event, metadata: { actor: 'import' } })) },
        { streamId: existing, expected: 2, events: ev(2).map((event) => ({ event, metadata: { actor: 'import' } })) },
      ]),
    );
    await assertChained(fresh, 3);
    await assertChained(existing, 4);
    await fixture.store.append(existing, ev(1), 4, {});
    await assertChained(existing, 5);
  });

  it('rule: the migration chains events appended before hashing existed, and appends then go on from its heads', async () => {
    const old = [stream('legacy'), stream('legacy')];
    for (const s of old) await fixture.store.append(s, ev(3), 0, {});
    await fixture.db.knex.raw(`update es_events set metadata = metadata - 'prevHash' - 'hash' where stream_id = any(?)`, [old] as never);
    await fixture.db.knex.raw(`update es_streams set head_hash = null where stream_id = any(?)`, [old] as never);
    assert.equal((await verifyStream(fixture.store, old[0])).verified, false);
    await backfillChains(fixture.db.knex);
    for (const s of old) await assertChained(s, 3);
    await fixture.store.append(old[0], ev(1), 3, {});
    await assertChained(old[0], 4);
  });

  it('rule: verifying a category finds each altered, deleted or swapped event at its version', async () => {
    const [altered, deleted, swapped, intact] = [stream('tamper'), stream('tamper'), stream('tamper'), stream('tamper')];
    for (const s of [altered, deleted, swapped, intact]) await fixture.store.append(s, ev(5), 0, {});
    const k = fixture.db.knex;
    await k.raw(`update es_events set data = jsonb_set(data, '{tag}', '"edited"') where stream_id = ? and version = 4`, [altered]);
    await k.raw(`delete from es_events where stream_id = ? and version = 2`, [deleted]);
    await k.raw(`update es_events set version = -2 where stream_id = ? and version = 2`, [swapped]);
    await k.raw(`update es_events set version = 2 where stream_id = ? and version = 3`, [swapped]);
    await k.raw(`update es_events set version = 3 where stream_id = ? and version = -2`, [swapped]);
    const verdicts: StreamVerdict[] = [];
    let events = 0;
    await verifyChains(k, { category: 'tamper' }, (v) => verdicts.push(v), (n) => (events += n));
    assert.deepEqual(
      Object.fromEntries(verdicts.map((v) => [v.streamId, v.firstBrokenVersion])),
      { [altered]: 4, [deleted]: 2, [swapped]: 2, [intact]: null },
    );
    assert.equal(events, 19);
  });
});
