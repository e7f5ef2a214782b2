import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ExpectedVersionConflict } from '../../../src/domain/errors';
import { eventStoreForSuite } from '../../support/postgres';

/** A guard with array parameters, as the create's guard has (uuid[] and text[]). */
const GUARD = { sql: `select ($1::text[] @> $2::text[] and cardinality($3::uuid[]) >= 0) as ok, $4::text as role` };

describe('PostgresEventStore: concurrent appends share a batch (one round trip, one commit)', () => {
  const fixture = eventStoreForSuite();

  const stream = () => `batched-${crypto.randomUUID()}`;
  const awkward = `O'Brien \\ "quoted" $1 {a,b} ${'\u00e9\u4e2d'} E'x'`;

  it('rule: appends made at once commit together and each reads back exactly as made alone', async () => {
    const streams = Array.from({ length: 12 }, stream);
    const results = await Promise.all(
      streams.map((s, i) =>
        i % 2
          ? fixture.store.append(s, [{ type: 'Batched', data: { i, text: awkward } }, { type: 'Batched', data: { i, second: true } }], 0, { actor: awkward })
          : fixture.store.appendGuarded(s, [{ type: 'Batched', data: { i, text: awkward } }], 0, { actor: awkward }, { ...GUARD, values: [['a', awkward], [awkward], [crypto.randomUUID()], awkward] }),
      ),
    );
    // One transaction: the events share the appending transaction's id, in the order of their streams
    // (so batches of several processes take stream rows in one order and never deadlock).
    const positions = results.map((r) => ('result' in r ? r.result!.position : r.position));
    assert.equal(new Set(positions.map((p) => p.commit)).size, 1);
    const byStream = streams.map((s, i) => [s, positions[i].prepare] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
    assert.deepEqual(byStream.map(([, p]) => p), [...positions.map((p) => p.prepare)].sort((a, b) => (a < b ? -1 : 1)));
    for (const [i, s] of streams.entries()) {
      const r = results[i];
      if ('result' in r) assert.deepEqual(r.guard, { ok: true, role: awkward });
      const events = await fixture.store.readStream(s);
      assert.deepEqual(
        events.map((e) => [e.version, e.data, e.metadata.actor]),
        i % 2 ? [[1, { i, text: awkward }, awkward], [2, { i, second: true }, awkward]] : [[1, { i, text: awkward }, awkward]],
      );
    }
  });

  it('rule: in a batch, a refused guard and a lost race append nothing while the others append', async () => {
    const taken = stream();
    await fixture.store.append(taken, [{ type: 'Batched', data: {} }], 0, {});
    const fresh = [stream(), stream()];
    const [refused, lost, ok1, ok2] = await Promise.allSettled([
      fixture.store.appendGuarded(stream(), [{ type: 'Batched', data: {} }], 0, {}, { ...GUARD, values: [['a'], ['b'], [], 'viewer'] }),
      fixture.store.appendGuarded(taken, [{ type: 'Batched', data: {} }], 0, {}, { ...GUARD, values: [['a'], ['a'], [], 'editor'] }),
      fixture.store.append(fresh[0], [{ type: 'Batched', data: {} }], 0, {}),
      fixture.store.appendGuarded(fresh[1], [{ type: 'Batched', data: {} }], 0, {}, { ...GUARD, values: [['a'], [], [], 'editor'] }),
    ]);
    assert.deepEqual(refused.status === 'fulfilled' && refused.value, { guard: { ok: false, role: 'viewer' }, result: null });
    assert.ok(lost.status === 'rejected' && lost.reason instanceof ExpectedVersionConflict && lost.reason.actual === 1);
    assert.ok(ok1.status === 'fulfilled' && ok2.status === 'fulfilled');
    assert.equal(await fixture.store.streamVersion(taken), 1);
    assert.deepEqual(await Promise.all(fresh.map((s) => fixture.store.streamVersion(s))), [1, 1]);
  });

  it('rule: a statement that fails fails alone: the batch is rolled back and its other appends are made one by one', async () => {
    const streams = [stream(), stream(), stream()];
    // jsonb refuses \u0000 in a string: that append's statement fails inside the shared transaction.
    const settled = await Promise.allSettled(streams.map((s, i) => fixture.store.append(s, [{ type: 'Batched', data: { bad: i === 1 ? 'nul \u0000 here' : 'fine' } }], 0, {})));
    assert.equal(settled[0].status, 'fulfilled');
    assert.equal(settled[1].status, 'rejected');
    assert.equal(settled[2].status, 'fulfilled');
    assert.deepEqual(await Promise.all(streams.map((s) => fixture.store.streamVersion(s))), [1, 0, 1]);
  });

  it('rule: appends to one stream made at once keep their expected-version rule (one wins, the others conflict)', async () => {
    const s = stream();
    const settled = await Promise.allSettled(Array.from({ length: 8 }, () => fixture.store.append(s, [{ type: 'Batched', data: {} }], 0, {})));
    assert.equal(settled.filter((r) => r.status === 'fulfilled').length, 1);
    assert.ok(settled.every((r) => r.status === 'fulfilled' || r.reason instanceof ExpectedVersionConflict));
    assert.equal(await fixture.store.streamVersion(s), 1);
  });
});
