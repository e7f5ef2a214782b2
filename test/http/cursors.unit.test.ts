import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { CursorService } from '../../src/http/cursors';
import type { Principal } from '../../src/domain/principal';
import { AppError } from '../../src/domain/errors';

const principal = (userId: string): Principal => ({ keyId: 'k', userId, tenantId: 't', name: null, email: null, readOnly: false, permissions: [], tenant: { datasets: [], sharing: false } });
const isInvalidCursor = (e: unknown) => e instanceof AppError && e.status === 400 && e.code === 'invalid_cursor';

describe('cursor service', () => {
  let now = Date.UTC(2026, 10, 22);
  const svc = new CursorService(crypto.randomBytes(32), null, () => now);
  const binding = { kind: 'catalog', principal: principal('u1'), request: { state: ['TX'], limit: 50 } };

  it('round-trips the state and keeps the first page time; at most 128 characters', async () => {
    const c = await svc.encode(binding, { k: ['2024-01-01', 'abc'] });
    assert.ok(c.length <= 128);
    const d = await svc.decode<{ k: string[] }>(binding, c);
    assert.deepEqual(d.state, { k: ['2024-01-01', 'abc'] });
    assert.equal(d.issuedAt, now);
  });

  it('rule: a cursor is bound to the caller, the filters and the limit', async () => {
    const c = await svc.encode(binding, { o: 50 });
    await assert.rejects(svc.decode({ ...binding, principal: principal('u2') }, c), isInvalidCursor);
    await assert.rejects(svc.decode({ ...binding, request: { state: ['CA'], limit: 50 } }, c), isInvalidCursor);
    await assert.rejects(svc.decode({ ...binding, request: { state: ['TX'], limit: 10 } }, c), isInvalidCursor);
    await assert.rejects(svc.decode({ ...binding, kind: 'search' }, c), isInvalidCursor);
  });

  it('rule: a tampered or malformed cursor is invalid_cursor', async () => {
    const c = await svc.encode(binding, { o: 50 });
    const flipped = c.slice(0, 20) + (c[20] === 'A' ? 'B' : 'A') + c.slice(21);
    await assert.rejects(svc.decode(binding, flipped), isInvalidCursor);
    await assert.rejects(svc.decode(binding, 'not a cursor!'), isInvalidCursor);
    await assert.rejects(svc.decode(binding, 'x'.repeat(129)), isInvalidCursor);
  });

  it('rule: a tampered cursor is invalid_cursor, also when only the last character changes (base64url padding bits)', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (const o of [5, 50, 500, 5000]) {
      const c = await svc.encode(binding, { o });
      for (const ch of alphabet) {
        if (ch === c[c.length - 1]) continue;
        await assert.rejects(svc.decode(binding, c.slice(0, -1) + ch), isInvalidCursor, `${c} with last character ${ch}`);
      }
    }
  });

  it('rule: cursors expire 24 hours after the first page, and continuing does not extend that', async () => {
    const first = await svc.encode(binding, { o: 50 });
    const issued = (await svc.decode(binding, first)).issuedAt;
    now += 23 * 3600 * 1000;
    const second = await svc.encode(binding, { o: 100 }, issued);
    await svc.decode(binding, second);
    now += 2 * 3600 * 1000;
    await assert.rejects(svc.decode(binding, second), isInvalidCursor);
  });
  it('rule: a cursor decoded with expires: false (live offset cursors, e.g. products) does not expire, but stays tamper-proof', async () => {
    const live = { kind: 'directory.products', principal: null, request: null };
    const c = await svc.encode(live, { o: 50 });
    now += 30 * 24 * 3600 * 1000;
    assert.deepEqual((await svc.decode(live, c, { expires: false })).state, { o: 50 });
    await assert.rejects(svc.decode(live, c), isInvalidCursor);
    const flipped = c.slice(0, 20) + (c[20] === 'A' ? 'B' : 'A') + c.slice(21);
    await assert.rejects(svc.decode(live, flipped, { expires: false }), isInvalidCursor);
  });
});
