import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { ExpectedVersionConflict } from '../../../src/domain/errors';
import { eventStoreForSuite } from '../../support/postgres';

/** A guard as commands write them: one look-up row with `ok` and what the caller needs from it. */
const GUARD = { sql: `select $1::boolean as ok, $2::text as role` };

describe('PostgresEventStore: appends guarded by a look-up in the same statement', () => {
  const fixture = eventStoreForSuite();

  const stream = () => `guarded-${crypto.randomUUID()}`;
  const ev = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'Guarded', data: { i } }));

  it('rule: an allowed append appends as append does and answers the guard\'s row', async () => {
    const s = stream();
    for (const [expected, n] of [[0, 1], [1, 2], ['any', 1], [4, 3]] as const) {
      const r = await fixture.store.appendGuarded(s, ev(n), expected, { actor: 'a' }, { ...GUARD, values: [true, 'editor'] });
      assert.deepEqual(r.guard, { ok: true, role: 'editor' });
      assert.ok(r.result);
    }
    const events = await fixture.store.readStream(s);
    assert.deepEqual(
      events.map((e) => [e.version, (e.data as { i: number }).i, e.metadata.actor]),
      [[1, 0, 'a'], [2, 0, 'a'], [3, 1, 'a'], [4, 0, 'a'], [5, 0, 'a'], [6, 1, 'a'], [7, 2, 'a']],
    );
    assert.equal((await fixture.store.appendGuarded(s, ev(1), 7, {}, { ...GUARD, values: [true, 'x'] })).result?.nextVersion, 8);
  });

  it('rule: a refused or empty guard appends nothing and burns no position (the gap-free log stays gap-free)', async () => {
    const s = stream();
    const first = await fixture.store.append(s, ev(1), 0, {});
    for (const [expected, n] of [[1, 1], [1, 3], ['any', 1], ['any', 2]] as const) {
      const refused = await fixture.store.appendGuarded(s, ev(n), expected, {}, { ...GUARD, values: [false, 'viewer'] });
      assert.deepEqual(refused, { guard: { ok: false, role: 'viewer' }, result: null });
    }
    const none = await fixture.store.appendGuarded(s, ev(1), 1, {}, { sql: `select true as ok where $1::boolean`, values: [false] });
    assert.deepEqual(none, { guard: null, result: null });
    const fresh = await fixture.store.appendGuarded(stream(), ev(1), 0, {}, { ...GUARD, values: [false, null] });
    assert.equal(fresh.result, null);
    assert.equal(await fixture.store.streamVersion(s), 1);
    const next = await fixture.store.append(s, ev(1), 1, {});
    assert.equal(next.position.prepare, first.position.prepare + 1n);
  });

  it('rule: an allowed append with a stale expected version is a version conflict, as append', async () => {
    const s = stream();
    await fixture.store.append(s, ev(1), 0, {});
    await assert.rejects(fixture.store.appendGuarded(s, ev(1), 0, {}, { ...GUARD, values: [true, 'editor'] }), ExpectedVersionConflict);
    await assert.rejects(fixture.store.appendGuarded(s, ev(2), 3, {}, { ...GUARD, values: [true, 'editor'] }), (e: unknown) => e instanceof ExpectedVersionConflict && e.actual === 1);
    assert.equal(await fixture.store.streamVersion(s), 1);
  });
});
