import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import client from 'prom-client';
import { openDatabase, type Database } from '../../../infra/postgres/database';
import { PostgresIdempotencyStore } from '../../../infra/idempotency/postgres-idempotency-store';
import { DomainError } from '../../../src/domain/errors';
import { createApp } from '../../../src/http/app';
import { defineRoute } from '../../../src/http/route';
import { appendStarting, type WriteTrace } from '../../../src/ports/write-trace';
import { CommandHandler } from '../../../commands/command-handler';
import { PostgresEventStore } from '../../../infra/eventstore/postgres-event-store';
import type { Decider } from '../../../src/domain/decider';
import { z } from '../../../src/http/zod';
import type { Principal } from '../../../src/domain/principal';
import { createLogger } from '../../../src/util/logger';
import { freshDatabaseUrl } from '../../support/postgres';

/**
 * A keyed write that fails: the real app and the real Postgres store, with routes that fail before, after, or
 * instead of an append (appendStarting is what the command handler calls around its appends).
 */
describe('Idempotency-Key when the write fails', () => {
  let db: Database;
  let server: http.Server;
  let base: string;
  const runs: Record<string, number> = {};
  const principal: Principal = { keyId: 'k', userId: 'u', tenantId: 't', name: null, email: null, readOnly: false, permissions: [], tenant: { datasets: [], sharing: false } };
  const failing = (name: string, fail: (trace: WriteTrace | undefined) => never) =>
    defineRoute({
      method: 'post',
      paths: [`/${name}`],
      operationId: name,
      summary: name,
      idempotencyKey: 'honored',
      body: z.strictObject({}),
      responses: { 201: { description: 'made' } },
      handler: async ({ trace }) => {
        runs[name] = (runs[name] ?? 0) + 1;
        return fail(trace);
      },
    });

  before(async () => {
    db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await freshDatabaseUrl(), log: createLogger('silent'), poolMax: 4 });
    const app = createApp({
      routes: [
        failing('before-append', () => {
          throw new DomainError('not_allowed', 'refused by the decider', 403);
        }),
        failing('after-append', (trace) => {
          appendStarting(trace);
          throw new Error('the connection died after the commit');
        }),
        failing('conflict', (trace) => {
          const wroteNothing = appendStarting(trace);
          wroteNothing();
          throw new DomainError('version_conflict', 'the stream moved on', 409);
        }),
      ],
      authenticate: () => principal,
      log: createLogger('silent'),
      health: { ready: async () => ({ ok: true, details: {} }) },
      metrics: new client.Registry(),
      idempotency: new PostgresIdempotencyStore(db.knex, { leaseMs: 60_000 }),
    });
    server = http.createServer(app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v2`;
  });
  after(async () => {
    server?.closeAllConnections?.();
    await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
    await db?.close();
  });

  const post = (p: string, key: string) => fetch(`${base}${p}`, { method: 'POST', headers: { Authorization: 'Bearer x', 'Content-Type': 'application/json', 'Idempotency-Key': key }, body: '{}' });

  it('rule: a failure before any append releases the key: the retry runs again', async () => {
    const a = await post('/before-append', 'k-before');
    const b = await post('/before-append', 'k-before');
    assert.equal(a.status, 403);
    assert.equal(b.status, 403);
    assert.equal(b.headers.get('idempotent-replayed'), null);
    assert.equal(runs['before-append'], 2);
  });

  it('rule: a failure after an append may have committed keeps the error answer: the retry gets it and does not write again', async () => {
    const a = await post('/after-append', 'k-after');
    const first = await a.json();
    const b = await post('/after-append', 'k-after');
    assert.equal(a.status, 500);
    assert.equal(b.status, 500);
    assert.equal(b.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(await b.json(), first);
    assert.equal(runs['after-append'], 1);
  });

  it('rule: an append known to have written nothing (a version conflict) releases the key', async () => {
    await post('/conflict', 'k-conflict');
    const b = await post('/conflict', 'k-conflict');
    assert.equal(b.status, 409);
    assert.equal(b.headers.get('idempotent-replayed'), null);
    assert.equal(runs.conflict, 2);
  });

  it('rule: the command handler marks the request as written at its append, and not for a refusal or a lost race', async () => {
    type E = { type: 'Counted'; data: { n: number } };
    const counter: Decider<number, { expect: number }, E> = {
      initialState: () => 0,
      evolve: (n) => n + 1,
      decide: (n, c) => {
        if (c.expect !== n) throw new DomainError('refused', 'not the expected count', 409);
        return [{ type: 'Counted', data: { n } }];
      },
    };
    const store = new PostgresEventStore(db.knex);
    const handler = new CommandHandler(store, null, createLogger('silent'));
    const traced = async (fn: (trace: WriteTrace) => Promise<unknown>) => {
      const trace = { mayHaveWritten: false };
      await fn(trace).catch(() => undefined);
      return trace.mayHaveWritten;
    };
    assert.equal(await traced((trace) => handler.execute(counter, 'counter-1', { expect: 0 }, { metadata: {}, trace })), true);
    assert.equal(await traced((trace) => handler.execute(counter, 'counter-1', { expect: 5 }, { metadata: {}, trace })), false);
    // A stale new-stream guess loses the race at the append: nothing was written, and the retry is refused.
    assert.equal(await traced((trace) => handler.execute(counter, 'counter-1', { expect: 0 }, { metadata: {}, newStream: true, trace })), false);
  });
});
