import assert from 'node:assert/strict';
import type { EventStore } from '../../infra/eventstore/event-store';
import type { RecordedEvent } from '../../src/domain/events';
import { FilingHistory, eventsUpTo, foldFiling, type PointInTime } from '../../queries/managed-filings/filing-history';

const T0 = Date.parse('2026-11-27T10:00:00.000Z');

/** A filing created at v1 and edited at every later version; v8's clock ran behind (recorded before v7). */
function stream(n: number): RecordedEvent[] {
  return Array.from({ length: n }, (_, i) => {
    const version = i + 1;
    const at = new Date(T0 + (version === 8 ? 6.5 : version) * 1000);
    const data =
      version === 1
        ? { filingId: 'f-1', scope: 's', scopeId: 's', tenantId: 't', filingMode: null, fields: { description: 'd1' }, createdAt: at.toISOString() }
        : { filingId: 'f-1', changes: { description: `d${version}` }, updatedAt: at.toISOString() };
    return { eventId: `e${version}`, streamId: 'managedFiling-f-1', version, type: version === 1 ? 'ManagedFilingCreated' : 'ManagedFilingUpdated', schemaVersion: 1, data, metadata: {}, position: { commit: BigInt(version), prepare: BigInt(version) }, recordedAt: at };
  });
}

describe('auditors: point-in-time snapshots', () => {
  it('rule: an answer folded from a snapshot equals the fold of the stream up to the point (versions, moments, a clock that ran behind)', async () => {
    const all = stream(23);
    const reads: number[] = [];
    const store = { readStream: async (_id: string, from = 1, max = Infinity) => (reads.push(from), all.filter((e) => e.version >= from).slice(0, max)) } as unknown as EventStore;
    const history = new FilingHistory(store, 4);
    const points: PointInTime[] = [];
    for (let v = 1; v <= 25; v++) points.push({ atVersion: v });
    for (let s = 0; s <= 25; s += 0.5) points.push({ asOf: new Date(T0 + s * 1000) });
    // The head first (takes every snapshot), then the points in an order that keeps using them.
    for (const p of [{ atVersion: 23 }, ...points.reverse()]) {
      const expected = foldFiling(eventsUpTo(all, p));
      if (!expected.state.exists) {
        await assert.rejects(history.at('f-1', p), /did not exist/);
        continue;
      }
      assert.deepEqual(await history.at('f-1', p), expected, JSON.stringify(p));
    }
    assert.equal(reads[0], 1);
    assert.ok(reads.slice(1).some((from) => from > 1), 'later answers read from a snapshot on');
    // After v8's time but before v7's: the v8 snapshot (v8 recorded before v7) must not answer it.
    assert.equal((await history.at('f-1', { asOf: new Date(T0 + 6.7 * 1000) })).version, 6);
  });
});
