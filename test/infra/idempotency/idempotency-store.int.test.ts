import assert from 'node:assert/strict';
import { openDatabase, type Database } from '../../../infra/postgres/database';
import { PostgresIdempotencyStore } from '../../../infra/idempotency/postgres-idempotency-store';
import { createLogger } from '../../../src/util/logger';
import { freshDatabaseUrl } from '../../support/postgres';

describe('Postgres idempotency store', () => {
  let db: Database;
  const caller = { tenantId: 't1', userId: 'u1' };
  const answer = { status: 201, headers: { Location: '/api/v2/x' }, body: '{"id":"x"}' };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  before(async () => {
    db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await freshDatabaseUrl(), log: createLogger('silent'), poolMax: 4 });
  });
  after(async () => db?.close());

  it('rule: a claimed key answers in_flight to a duplicate, then replays the stored answer; another fingerprint is a mismatch', async () => {
    const store = new PostgresIdempotencyStore(db.knex, { leaseMs: 60_000 });
    assert.deepEqual(await store.claim(caller, 'k1', 'f'), { kind: 'claimed', noted: [] });
    assert.deepEqual(await store.claim(caller, 'k1', 'f'), { kind: 'in_flight' });
    assert.deepEqual(await store.claim(caller, 'k1', 'g'), { kind: 'mismatch' });
    await store.complete(caller, 'k1', 'f', answer);
    assert.deepEqual(await store.claim(caller, 'k1', 'f'), { kind: 'replay', answer });
    assert.deepEqual(await store.claim({ tenantId: 't1', userId: 'u2' }, 'k1', 'f'), { kind: 'claimed', noted: [] });
  });

  it('rule: a released key is free again (a failed request may be retried)', async () => {
    const store = new PostgresIdempotencyStore(db.knex, { leaseMs: 60_000 });
    assert.deepEqual(await store.claim(caller, 'k2', 'f'), { kind: 'claimed', noted: [] });
    await store.release(caller, 'k2', 'f');
    assert.deepEqual(await store.claim(caller, 'k2', 'f'), { kind: 'claimed', noted: [] });
  });

  it('rule: a claim whose lease ran out (its host died mid-request) is taken over by the same request only', async () => {
    const store = new PostgresIdempotencyStore(db.knex, { leaseMs: 50 });
    assert.deepEqual(await store.claim(caller, 'k3', 'f'), { kind: 'claimed', noted: [] });
    await sleep(120);
    assert.deepEqual(await store.claim(caller, 'k3', 'g'), { kind: 'mismatch' });
    assert.deepEqual(await store.claim(caller, 'k3', 'f'), { kind: 'claimed', noted: [] });
  });

  it('rule: the streams a holder noted before appending pass to the request that takes its claim over, once each; an expired key starts without them', async () => {
    const store = new PostgresIdempotencyStore(db.knex, { leaseMs: 50, retentionMs: 400 });
    assert.deepEqual(await store.claim(caller, 'k6', 'f'), { kind: 'claimed', noted: [] });
    await store.noteStream(caller, 'k6', 'f', 'managedFiling-1');
    await store.noteStream(caller, 'k6', 'f', 'managedFiling-1');
    await store.noteStream(caller, 'k6', 'f', 'artifact-2');
    await sleep(120);
    assert.deepEqual(await store.claim(caller, 'k6', 'f'), { kind: 'claimed', noted: ['managedFiling-1', 'artifact-2'] });
    await sleep(450);
    assert.deepEqual(await store.claim(caller, 'k6', 'g'), { kind: 'claimed', noted: [] });
  });

  it('rule: an answer is kept for the retention time only; expired keys are claimable and purged in bounded batches', async () => {
    const store = new PostgresIdempotencyStore(db.knex, { leaseMs: 60_000, retentionMs: 50, cleanupEvery: 2 });
    assert.deepEqual(await store.claim(caller, 'k4', 'f'), { kind: 'claimed', noted: [] });
    await store.complete(caller, 'k4', 'f', answer);
    assert.deepEqual(await store.claim(caller, 'k5', 'f'), { kind: 'claimed', noted: [] });
    await sleep(120);
    // Expired: the same key with another body starts afresh instead of a 422.
    assert.deepEqual(await store.claim(caller, 'k4', 'g'), { kind: 'claimed', noted: [] });
    // The second completion triggers the cleanup, which deletes k5 (expired) and keeps k4 (just claimed again).
    await store.complete(caller, 'k4', 'g', answer);
    const keys = (await db.knex('idempotency_keys').where({ tenant_id: 't1', user_id: 'u1' }).select('key')).map((r) => r.key).sort();
    assert.ok(!keys.includes('k5'), keys.join(','));
    assert.ok(keys.includes('k4'));
    assert.equal(await store.purgeExpired(), 0);
  });
});
