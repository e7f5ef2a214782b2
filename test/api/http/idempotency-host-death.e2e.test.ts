import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { startServe } from '../../support/cli';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload, type Listings } from '../../support/working-filings';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** What the dying host is configured with: its claims free themselves this soon after it is gone. */
const LEASE_MS = 1500;

/**
 * Polls `probe` until it answers true while the request to the doomed host is still open (bounded: a stuck
 * setup fails the test instead of hanging it).
 */
async function until(what: string, request: Promise<string>, probe: () => Promise<boolean>, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  let answered: string | null = null;
  void request.then((a) => (answered = a));
  while (!(await probe())) {
    if (answered !== null) throw new Error(`api-1 ${answered} before ${what}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

/**
 * Two API hosts on one database: api-1 is a real `ifrs serve --role api` process, SIGKILLed in the middle of a
 * keyed command (after its append committed, or before it appended); api-2 is the in-process service (with the
 * projector) that the client's retry goes to once api-1's claim has run out.
 */
describe('Idempotency-Key when an API host is killed mid-command (extension)', function () {
  this.timeout(180_000);
  let t: TestRuntime;
  let editor: TestCaller;
  let scope: string;
  let l: Listings;
  let knex: Knex;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-idem-death-'));
  let hosts = 0;

  before(async () => {
    t = await startTestRuntime();
    knex = t.rt.db.knex;
    editor = await makeCaller(t.rt);
    scope = await makeScope(t.rt, editor.tenantId, [{ userId: editor.userId, role: 'editor' }]);
    l = await seedListings(t.rt, scope);
  });
  after(async () => {
    await t?.close();
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** api-1: waits up to two minutes for a read side nobody advances while it is stopped, so a kill lands mid-command. */
  const startDoomedHost = () =>
    startServe(['--role', 'api', '--port', '0', '--data-dir', path.join(tmp, `api-${++hosts}`)], {
      DATABASE_URL: t.rt.config.databaseUrl!,
      IFRS_DATA_DIR: '',
      IFRS_RYW_TIMEOUT_MS: '120000',
      IFRS_IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
      LOG_LEVEL: 'warn',
    });

  const withKey = (key: string) => ({ 'Idempotency-Key': key, Authorization: `Bearer ${editor.apiKey}`, 'Content-Type': 'application/json' });
  const eventsOf = async (type: string, where: (q: Knex.QueryBuilder) => void) =>
    knex('es_events').where({ type }).modify(where).select<{ data: Record<string, any>; metadata: Record<string, unknown> }[]>('data', 'metadata');

  it('rule: a retry on another host after the first host died between its append and its answer gets the first answer (status, body, Location) and the log holds the command once', async () => {
    const key = crypto.randomUUID();
    const body = filingBody(scope, l, { description: 'Survives its host' });
    const api1 = await startDoomedHost();
    await t.rt.engine.stop();
    try {
      const first = fetch(`${api1.url}/managed-filings`, { method: 'POST', headers: withKey(key), body: JSON.stringify(body) }).then(
        async (r) => `answered ${r.status} ${await r.text()}`,
        () => 'no answer',
      );
      const mine = (q: Knex.QueryBuilder) => q.whereRaw(`data->>'scope' = ?`, [scope]).whereRaw(`data->'fields'->>'description' = ?`, ['Survives its host']);
      await until('api-1 appended the create', first, async () => (await eventsOf('ManagedFilingCreated', mine)).length > 0);
      api1.child.kill('SIGKILL');
      await api1.exited;
      assert.equal(await first, 'no answer');
      const [appended] = await eventsOf('ManagedFilingCreated', mine);
      assert.equal(typeof appended.metadata.idempotencyKey, 'string', 'the append carries the key identity');
    } finally {
      await t.rt.engine.start();
    }
    await sleep(LEASE_MS);

    const api2 = client(t.baseUrl, editor.apiKey);
    const retry = await api2.post('/managed-filings', body, { 'Idempotency-Key': key });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    const created = await eventsOf('ManagedFilingCreated', (q) => q.whereRaw(`data->>'scope' = ?`, [scope]).whereRaw(`data->'fields'->>'description' = ?`, ['Survives its host']));
    assert.equal(created.length, 1, 'the log holds the create once');
    const filingId = created[0].data.filingId as string;
    assert.equal(retry.headers.get('location'), `/api/v2/managed-filings/${filingId}`);
    // The first answer as the dead host would have sent it: an ordinary create answers the same shape.
    const ordinary = await api2.post('/managed-filings', filingBody(scope, l, { description: 'An ordinary create' }));
    assert.deepEqual(Object.keys(retry.body).sort(), Object.keys(ordinary.body).sort());
    assert.equal(retry.body.id, filingId);
    assert.equal(retry.body.description, 'Survives its host');
    assert.deepEqual(retry.body.permissions, ordinary.body.permissions);
    const detail = await api2.get(`/managed-filings/${filingId}`);
    assert.equal(detail.status, 200, detail.text);
    for (const k of ['id', 'scope', 'description', 'companyId', 'jurisdictionId', 'createdAt']) assert.deepEqual(retry.body[k], detail.body[k], k);

    const again = await api2.post('/managed-filings', body, { 'Idempotency-Key': key });
    assert.equal(again.status, 201);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(again.text, retry.text);
    assert.equal(again.headers.get('location'), retry.headers.get('location'));
  });

  it('rule: an append still waiting when its host was killed never commits after the retry looked: the command is written once', async () => {
    const key = crypto.randomUUID();
    const body = filingBody(scope, l, { description: 'Append orphaned' });
    const mine = (q: Knex.QueryBuilder) => q.whereRaw(`data->>'scope' = ?`, [scope]).whereRaw(`data->'fields'->>'description' = ?`, ['Append orphaned']);
    const waiters = async () => Number((await knex.raw(`select count(*) as n from pg_locks where not granted and relation = 'es_events'::regclass`)).rows[0].n);
    const api1 = await startDoomedHost();
    // Appends wait (reads do not) until the lock goes: api-1's append is in the database when it dies. The retry
    // looks while that append still waits; Postgres must not commit it once its client is gone.
    const lock = await knex.transaction();
    let retry: Promise<{ status: number; text: string; headers: Headers }>;
    try {
      await lock.raw('lock table es_events in exclusive mode');
      const first = fetch(`${api1.url}/managed-filings`, { method: 'POST', headers: withKey(key), body: JSON.stringify(body) }).then(
        (r) => `answered ${r.status}`,
        () => 'no answer',
      );
      await until('api-1 waits to append', first, async () => (await waiters()) > 0);
      api1.child.kill('SIGKILL');
      await api1.exited;
      assert.equal(await first, 'no answer');
      await sleep(LEASE_MS);
      retry = client(t.baseUrl, editor.apiKey).post('/managed-filings', body, { 'Idempotency-Key': key });
      await until('the retry waits to append', retry.then(() => 'answered'), async () => (await waiters()) > 0);
    } finally {
      await lock.rollback();
    }
    const answer = await retry;
    assert.equal(answer.status, 201, answer.text);
    assert.equal(answer.headers.get('idempotent-replayed'), null, 'api-1 wrote nothing: the retry ran the command');
    assert.equal((await eventsOf('ManagedFilingCreated', mine)).length, 1);
  });

  it('rule: a retry after the first host died before appending runs the command once', async () => {
    const filing = await client(t.baseUrl, editor.apiKey).post('/managed-filings', filingBody(scope, l, { description: 'Gets one item' }));
    assert.equal(filing.status, 201, filing.text);
    const filingId = filing.body.id as string;
    const { artifact } = await upload(t.baseUrl, editor.apiKey, scope, 'item bytes');
    const artifactId = artifact.id as string;
    const key = crypto.randomUUID();
    const body = { artifactId, context: 'once' };
    const api1 = await startDoomedHost();
    // api-1 stops at its first look at the filing (before it decides or appends) until the lock goes.
    const lock = await knex.transaction();
    try {
      await lock.raw('lock table managed_filings in access exclusive mode');
      const first = fetch(`${api1.url}/managed-filings/${filingId}/items`, { method: 'POST', headers: withKey(key), body: JSON.stringify(body) }).then(
        async (r) => `answered ${r.status} ${await r.text()}`,
        () => 'no answer',
      );
      const claim = () => knex('idempotency_keys').where({ user_id: editor.userId, key }).first<{ streams: string[] } | undefined>('streams');
      await until('api-1 claimed the key', first, async () => (await claim()) !== undefined);
      await until('api-1 waits on the lock', first, async () => Number((await knex.raw(`select count(*) as n from pg_locks where not granted and relation = 'managed_filings'::regclass`)).rows[0].n) > 0);
      api1.child.kill('SIGKILL');
      await api1.exited;
      assert.equal(await first, 'no answer');
      assert.deepEqual((await claim())?.streams, [], 'api-1 died holding the key, before any append');
    } finally {
      await lock.rollback();
    }
    await sleep(LEASE_MS);

    const retry = await client(t.baseUrl, editor.apiKey).post(`/managed-filings/${filingId}/items`, body, { 'Idempotency-Key': key });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), null, 'nothing was written before: the retry ran the command');
    const added = await eventsOf('ManagedFilingItemAdded', (q) => q.whereRaw(`data->>'filingId' = ?`, [filingId]));
    assert.equal(added.length, 1);
    assert.equal(retry.body.id, added[0].data.item.id);
  });
});
