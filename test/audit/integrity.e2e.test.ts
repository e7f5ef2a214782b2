import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../support/cli';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../support/runtime';
import { filingBody, seedListings } from '../working-filings/support';

/** A filing with a few events: the create, then field edits, and one comment. */
async function filingWithHistory(t: TestRuntime, apiKey: string, scope: string, l: Awaited<ReturnType<typeof seedListings>>): Promise<string> {
  const api = client(t.baseUrl, apiKey);
  const id = (await api.post('/managed-filings', filingBody(scope, l))).body.id as string;
  for (const n of ['AB-1', 'AB-2', 'AB-3']) assert.equal((await api.patch(`/managed-filings/${id}`, { serffTrackingNumber: n })).status, 200);
  assert.equal((await api.post(`/managed-filings/${id}/comments`, { body: 'checked' })).status, 201);
  return id;
}

describe('auditors: tamper evidence over HTTP and the CLI', function () {
  this.timeout(240_000);
  let t: TestRuntime;
  let ana: TestCaller;
  let stranger: TestCaller;
  const ids: Record<'altered' | 'deleted' | 'swapped' | 'truncated' | 'intact', string> = {} as never;
  before(async () => {
    t = await startTestRuntime();
    ana = await makeCaller(t.rt);
    stranger = await makeCaller(t.rt);
    const scope = await makeScope(t.rt, ana.tenantId, [{ userId: ana.userId, role: 'editor' }]);
    const l = await seedListings(t.rt, scope);
    for (const k of ['altered', 'deleted', 'swapped', 'truncated', 'intact'] as const) ids[k] = await filingWithHistory(t, ana.apiKey, scope, l);
  });
  after(async () => t?.close());

  const integrity = (id: string, key = ana.apiKey) => client(t.baseUrl, key).get(`/managed-filings/${id}/integrity`);

  it('rule: an untouched history verifies: version, the last event\'s hash, no broken version', async () => {
    const r = await integrity(ids.intact);
    assert.equal(r.status, 200, r.text);
    const events = await t.rt.store.readStream(`managedFiling-${ids.intact}`);
    assert.deepEqual(r.body, { version: 5, headHash: events[4].metadata.hash, verified: true, firstBrokenVersion: null });
    assert.match(String(r.body.headHash), /^[0-9a-f]{64}$/);
  });

  it('rule: the hashes are metadata the existing answers do not show (the events list)', async () => {
    const r = await client(t.baseUrl, ana.apiKey).get(`/managed-filings/${ids.intact}/events`);
    assert.equal(r.status, 200);
    for (const e of r.body.events) assert.deepEqual([e.metadata.hash, e.metadata.prevHash], [undefined, undefined]);
  });

  it('rule: integrity needs filing read access (404 for a caller who cannot see it)', async () => {
    assert.equal((await integrity(ids.intact, stranger.apiKey)).status, 404);
  });

  const cliEnv = () => ({ DATABASE_URL: t.rt.config.databaseUrl!, IFRS_DATA_DIR: t.dataDir, KAFKA_BROKERS: '', ELASTICSEARCH_URL: '', ESDB_URL: '' });

  it('rule: an export carries the hashes and verifies offline against the head hash; an edited export fails at its version', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-export-'));
    try {
      const stream = `managedFiling-${ids.intact}`;
      const file = path.join(dir, 'intact.jsonl');
      const ex = await runCli(['events', 'export', '--stream', stream, '--out', file], cliEnv());
      assert.equal(ex.code, 0, ex.stderr);
      assert.deepEqual(ex.json, { out: file, format: 'jsonl', events: 5 });
      const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.deepEqual(lines.map((l) => [l.version, typeof l.metadata.hash]), [[1, 'string'], [2, 'string'], [3, 'string'], [4, 'string'], [5, 'string']]);
      const head = (await integrity(ids.intact)).body.headHash as string;
      const ok = await runCli(['audit', 'verify', '--file', file, '--head', head], { DATABASE_URL: 'postgres://127.0.0.1:1/offline' });
      assert.equal(ok.code, 0, ok.stderr);
      assert.deepEqual([ok.json.verified, ok.json.events, ok.json.headHashes[stream]], [true, 5, head]);
      const wrongHead = await runCli(['audit', 'verify', '--file', file, '--head', 'f'.repeat(64)], {});
      assert.equal(wrongHead.code, 1);
      lines[3].data.serffTrackingNumber = 'ZZ-0';
      const edited = path.join(dir, 'edited.jsonl');
      fs.writeFileSync(edited, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
      const bad = await runCli(['audit', 'verify', '--file', edited], {});
      assert.equal(bad.code, 1);
      assert.deepEqual(bad.json.broken, [{ streamId: stream, firstBrokenVersion: 4, version: 4 }]);
      const csv = path.join(dir, 'all.csv');
      const c = await runCli(['events', 'export', '--category', 'managedFiling', '--format', 'csv', '--out', csv], cliEnv());
      assert.equal(c.code, 0, c.stderr);
      const rows = fs.readFileSync(csv, 'utf8').trim().split('\r\n');
      assert.equal(rows[0], 'streamId,version,type,schemaVersion,recordedAt,eventId,prevHash,hash,data,metadata');
      assert.equal(rows.length, 1 + 25);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rule: ifrs filings show --as-of/--at-version and ifrs filings changes answer as the HTTP reads', async () => {
    const show = await runCli(['filings', 'show', ids.intact, '--at-version', '2'], cliEnv());
    assert.equal(show.code, 0, show.stderr);
    const http = await client(t.baseUrl, ana.apiKey).get(`/managed-filings/${ids.intact}?atVersion=2`);
    const { permissions: _p, ...expected } = http.body;
    assert.deepEqual(show.json, expected);
    const now = await runCli(['filings', 'show', ids.intact, '--as-of', new Date().toISOString()], cliEnv());
    assert.deepEqual([now.json.version, now.json.serffTrackingNumber], [5, 'AB-3']);
    const changes = await runCli(['filings', 'changes', ids.intact], cliEnv());
    assert.equal(changes.code, 0, changes.stderr);
    assert.deepEqual(changes.json.changes, (await client(t.baseUrl, ana.apiKey).get(`/managed-filings/${ids.intact}/changes`)).body.changes);
    assert.equal((await runCli(['filings', 'show', ids.intact, '--as-of', 'yesterday'], cliEnv())).code, 2);
  });

  it('rule: an altered, a deleted, a swapped and a lost last event are caught at their versions by the endpoint and by ifrs audit verify', async () => {
    const k = t.rt.db.knex;
    const s = (id: string) => `managedFiling-${id}`;
    await k.raw(`update es_events set data = jsonb_set(data, '{serffTrackingNumber}', '"XX-9"') where stream_id = ? and version = 3`, [s(ids.altered)]);
    await k.raw(`delete from es_events where stream_id = ? and version = 2`, [s(ids.deleted)]);
    await k.raw(`update es_events set version = -1 where stream_id = ? and version = 3`, [s(ids.swapped)]);
    await k.raw(`update es_events set version = 3 where stream_id = ? and version = 4`, [s(ids.swapped)]);
    await k.raw(`update es_events set version = 4 where stream_id = ? and version = -1`, [s(ids.swapped)]);
    await k.raw(`delete from es_events where stream_id = ? and version = 5`, [s(ids.truncated)]);
    const expected = { altered: 3, deleted: 2, swapped: 3, truncated: 5 };
    for (const [k2, v] of Object.entries(expected)) {
      const r = await integrity(ids[k2 as keyof typeof ids]);
      assert.equal(r.status, 200);
      assert.equal(r.body.verified, false, k2);
      assert.equal(r.body.firstBrokenVersion, v, k2);
    }
    assert.equal((await integrity(ids.intact)).body.verified, true);

    const env = cliEnv();
    const all = await runCli(['audit', 'verify', '--category', 'managedFiling'], env);
    assert.equal(all.code, 1, all.stderr);
    assert.equal(all.json.verified, false);
    assert.deepEqual(
      Object.fromEntries(all.json.broken.map((b: { streamId: string; firstBrokenVersion: number }) => [b.streamId, b.firstBrokenVersion])),
      Object.fromEntries(Object.entries(expected).map(([k2, v]) => [s(ids[k2 as keyof typeof ids]), v])),
    );
    for (const [k2, v] of Object.entries(expected)) assert.match(all.stderr, new RegExp(`${s(ids[k2 as keyof typeof ids])}: chain broken at version ${v}`));
    const one = await runCli(['audit', 'verify', '--stream', s(ids.intact)], env);
    assert.equal(one.code, 0, one.stderr);
    assert.deepEqual(one.json, { verified: true, streams: 1, events: 5, broken: [] });
    assert.equal((await runCli(['audit', 'verify', '--stream', 'x', '--all'], env)).code, 2);
  });
});
