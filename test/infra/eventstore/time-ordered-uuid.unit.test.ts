import { strict as assert } from 'node:assert';
import { timeOrderedUuid } from '../../../infra/eventstore/time-ordered-uuid';

describe('event ids: time-ordered UUIDs (version 7)', () => {
  it('rule: an event id is a valid UUID of version 7 and the RFC variant (Postgres uuid and EventStoreDB accept it)', () => {
    for (let i = 0; i < 1000; i++) {
      assert.match(timeOrderedUuid(), /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    }
  });

  it('rule: the first 48 bits are the Unix milliseconds, so ids of later milliseconds sort after earlier ones', () => {
    const t = Date.UTC(2026, 10, 22, 14, 0, 0, 123);
    const id = timeOrderedUuid(t);
    assert.equal(parseInt(id.slice(0, 8) + id.slice(9, 13), 16), t);
    const ids = [t, t + 1, t + 1000, t + 86_400_000].map((ms) => timeOrderedUuid(ms));
    assert.deepEqual([...ids].sort(), ids);
  });

  it('rule: ids of the same millisecond differ (74 random bits each)', () => {
    const t = Date.now();
    const ids = new Set(Array.from({ length: 100_000 }, () => timeOrderedUuid(t)));
    assert.equal(ids.size, 100_000);
  });
});
