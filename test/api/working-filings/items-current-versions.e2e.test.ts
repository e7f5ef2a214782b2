import assert from 'node:assert/strict';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload, type Listings } from '../../support/working-filings';
import { FilingAccessService } from '../../../src/read-models/working-filings/filing-access';
import { ReferenceLookups } from '../../../src/read-models/working-filings/reference-lookups';

/**
 * Contract, PATCH .../items/{itemId}: "Related working files follow current content; version pinning
 * occurs when a submission is recorded." The service records no submissions, so an item and its
 * attachments show their artifacts' current versions (and names) wherever an item is served, while the
 * events keep the version each write saw.
 */
describe('working filings: items follow their artifacts\' current content', () => {
  let t: TestRuntime;
  let editor: TestCaller;
  let scope: string;
  let l: Listings;
  before(async () => {
    t = await startTestRuntime();
    editor = await makeCaller(t.rt);
    scope = await makeScope(t.rt, editor.tenantId, [{ userId: editor.userId, role: 'editor' }]);
    l = await seedListings(t.rt, scope);
  });
  after(async () => t.close());

  const api = () => client(t.baseUrl, editor.apiKey);
  const newFiling = async () => (await api().post('/managed-filings', filingBody(scope, l))).body.id as string;
  /** A new version of an existing artifact, through the whole upload flow; answers the completion's artifact. */
  const newVersion = async (artifactId: string, name: string) => (await upload(t.baseUrl, editor.apiKey, scope, `content of ${name}`, { name, artifactId })).artifact;
  const listed = async (filingId: string, itemId: string) => (await api().get(`/managed-filings/${filingId}/items?limit=100`)).body.items.find((i: any) => i.id === itemId);
  const attachment = (a: any) => ({ artifactId: a.id, artifactVersionId: a.currentVersion.id, artifactName: a.name, artifactVersionNumber: a.currentVersion.versionNumber });

  it('rule: after a new version of an artifact, GET items shows its current version id, number and name for the item and its attachments, right after the completion answers', async () => {
    const f = await newFiling();
    const v1 = (await upload(t.baseUrl, editor.apiKey, scope, 'first', { name: 'form-v1.txt' })).artifact;
    const other = (await upload(t.baseUrl, editor.apiKey, scope, 'other', { name: 'other.txt' })).artifact;
    const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: v1.id, attachments: [{ artifactId: v1.id }, { artifactId: other.id }] })).body;
    assert.equal(item.artifactVersionId, v1.currentVersion.id);
    const v2 = await newVersion(v1.id, 'form-v2.txt');
    assert.equal(v2.currentVersion.versionNumber, 2);
    assert.notEqual(v2.currentVersion.id, v1.currentVersion.id);
    // No wait and no catch-up here: the completion answers once the GETs show the new version.
    const shown = await listed(f, item.id);
    assert.equal(shown.artifactVersionId, v2.currentVersion.id);
    assert.deepEqual(shown.attachments, [attachment(v2), attachment(other)]);
    assert.equal(shown.attachments[0].artifactName, 'form-v2.txt');
    assert.equal(shown.attachments[0].artifactVersionNumber, 2);
    assert.equal(shown.updatedAt, item.updatedAt, 'a new artifact version is no write to the item');
  });

  it('rule: the PATCH answer shows current versions, whether the PATCH names no artifact, only attachments or only artifactId; GET items shows the same', async () => {
    const f = await newFiling();
    const a = (await upload(t.baseUrl, editor.apiKey, scope, 'a', { name: 'a-v1.txt' })).artifact;
    const b = (await upload(t.baseUrl, editor.apiKey, scope, 'b', { name: 'b-v1.txt' })).artifact;
    const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: a.id, attachments: [{ artifactId: a.id }] })).body;
    const a2 = await newVersion(a.id, 'a-v2.txt');
    const plain = await api().patch(`/managed-filings/${f}/items/${item.id}`, { context: 'names no artifact' });
    assert.equal(plain.status, 200, plain.text);
    assert.equal(plain.body.artifactVersionId, a2.currentVersion.id);
    assert.deepEqual(plain.body.attachments, [attachment(a2)]);
    assert.deepEqual(await listed(f, item.id), plain.body);

    const a3 = await newVersion(a.id, 'a-v3.txt');
    const attachmentsOnly = await api().patch(`/managed-filings/${f}/items/${item.id}`, { attachments: [{ artifactId: b.id }, { artifactId: a.id }] });
    assert.equal(attachmentsOnly.status, 200, attachmentsOnly.text);
    assert.equal(attachmentsOnly.body.artifactVersionId, a3.currentVersion.id, 'the item\'s own artifact, not named by the PATCH, is current too');
    assert.deepEqual(attachmentsOnly.body.attachments, [attachment(b), attachment(a3)]);
    assert.deepEqual(await listed(f, item.id), attachmentsOnly.body);

    const a4 = await newVersion(a.id, 'a-v4.txt');
    const b2 = await newVersion(b.id, 'b-v2.txt');
    const artifactOnly = await api().patch(`/managed-filings/${f}/items/${item.id}`, { artifactId: b.id });
    assert.equal(artifactOnly.status, 200, artifactOnly.text);
    assert.equal(artifactOnly.body.artifactId, b.id);
    assert.equal(artifactOnly.body.artifactVersionId, b2.currentVersion.id);
    assert.deepEqual(artifactOnly.body.attachments, [attachment(b2), attachment(a4)], 'attachments not named by the PATCH are current too');
    assert.deepEqual(await listed(f, item.id), artifactOnly.body);
  });

  it('rule: concurrent PATCHes naming artifacts (re-decided on version conflicts) all succeed and each answer shows current versions', async () => {
    const f = await newFiling();
    const a = (await upload(t.baseUrl, editor.apiKey, scope, 'a', { name: 'race-v1.txt' })).artifact;
    const b = (await upload(t.baseUrl, editor.apiKey, scope, 'b', { name: 'race-b.txt' })).artifact;
    const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: a.id })).body;
    const a2 = await newVersion(a.id, 'race-v2.txt');
    const rs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => api().patch(`/managed-filings/${f}/items/${item.id}`, { attachments: i % 2 ? [{ artifactId: b.id }] : [{ artifactId: a.id }, { artifactId: b.id }] })),
    );
    assert.deepEqual(rs.map((r) => r.status), Array(20).fill(200));
    for (const [i, r] of rs.entries()) {
      assert.equal(r.body.artifactVersionId, a2.currentVersion.id);
      assert.deepEqual(r.body.attachments, i % 2 ? [attachment(b)] : [attachment(a2), attachment(b)]);
    }
  });

  it('rule: the events history keeps the version each item write saw', async () => {
    const f = await newFiling();
    const a = (await upload(t.baseUrl, editor.apiKey, scope, 'a', { name: 'hist-v1.txt' })).artifact;
    const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: a.id, attachments: [{ artifactId: a.id }] })).body;
    const a2 = await newVersion(a.id, 'hist-v2.txt');
    assert.equal((await api().patch(`/managed-filings/${f}/items/${item.id}`, { context: 'after v2' })).status, 200);
    assert.equal((await api().patch(`/managed-filings/${f}/items/${item.id}`, { artifactId: a.id })).status, 200);
    const events = (await api().get(`/managed-filings/${f}/events?limit=100`)).body.events;
    const added = events.find((e: any) => e.type === 'ManagedFilingItemAdded').data.item;
    assert.equal(added.artifactVersionId, a.currentVersion.id);
    assert.deepEqual(added.attachments, [attachment(a)]);
    const changes = events.filter((e: any) => e.type === 'ManagedFilingItemChanged').map((e: any) => e.data.changes);
    assert.deepEqual(changes, [{ context: 'after v2' }, { artifactId: a.id, artifactVersionId: a2.currentVersion.id }]);
  });

  /**
   * The statements `write` makes for the filing `filingId`, as calls of the ports' methods that run
   * one (the access checks and look-ups of the read side, the event store's reads and appends).
   */
  async function statements<T>(filingId: string, write: () => Promise<T>): Promise<{ calls: string[]; result: T }> {
    const calls: string[] = [];
    const spied: [Record<string, unknown>, string][] = [];
    const spy = (target: any, label: string, names: string[], counts: (args: unknown[]) => boolean = () => true) => {
      for (const name of names) {
        const original = target[name];
        assert.equal(typeof original, 'function', `${label}.${name}`);
        target[name] = function (this: unknown, ...args: unknown[]) {
          if (counts(args)) calls.push(`${label}.${name}`);
          return original.apply(this, args);
        };
        spied.push([target, name]);
      }
    };
    spy(t.rt.container.get(FilingAccessService), 'access', ['filing', 'grants', 'sharing', 'grantIn']);
    spy(t.rt.container.get(ReferenceLookups), 'lookups', ['artifacts', 'checkListings', 'editableScopeListing']);
    // The indexing worker writes to an artifact's stream meanwhile: only the filing's stream counts.
    spy(t.rt.store, 'store', ['append', 'appendGuarded', 'readStream'], (args) => args[0] === `managedFiling-${filingId}`);
    try {
      return { result: await write(), calls };
    } finally {
      for (const [target, name] of spied) delete target[name];
    }
  }

  it('rule: the PATCH path keeps its round trips: naming no artifact, one (the guarded append, whose row carries the current versions); naming artifacts, the access check, one look-up and the append', async () => {
    const f = await newFiling();
    const a = (await upload(t.baseUrl, editor.apiKey, scope, 'a', { name: 'count-v1.txt' })).artifact;
    const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: a.id, attachments: [{ artifactId: a.id }] })).body;
    const a2 = await newVersion(a.id, 'count-v2.txt');
    const plain = await statements(f, () => api().patch(`/managed-filings/${f}/items/${item.id}`, { context: 'one round trip' }));
    assert.equal(plain.result.status, 200, plain.result.text);
    assert.deepEqual(plain.calls, ['store.appendGuarded']);
    assert.equal(plain.result.body.artifactVersionId, a2.currentVersion.id);
    assert.deepEqual(plain.result.body.attachments, [attachment(a2)]);

    const b = (await upload(t.baseUrl, editor.apiKey, scope, 'b', { name: 'count-b.txt' })).artifact;
    const named = await statements(f, () => api().patch(`/managed-filings/${f}/items/${item.id}`, { attachments: [{ artifactId: b.id }] }));
    assert.equal(named.result.status, 200, named.result.text);
    assert.deepEqual(named.calls, ['access.filing', 'lookups.artifacts', 'store.append']);
    assert.equal(named.result.body.artifactVersionId, a2.currentVersion.id);
    assert.deepEqual(named.result.body.attachments, [attachment(b)]);
  });

  it('rule: where the store cannot check in the append (EventStoreDB), the PATCH answer still shows current versions', async () => {
    const f = await newFiling();
    const a = (await upload(t.baseUrl, editor.apiKey, scope, 'a', { name: 'esdb-v1.txt' })).artifact;
    const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: a.id, attachments: [{ artifactId: a.id }] })).body;
    const a2 = await newVersion(a.id, 'esdb-v2.txt');
    const store = t.rt.store as unknown as Record<string, unknown>;
    store.appendGuarded = undefined;
    let r;
    try {
      r = await api().patch(`/managed-filings/${f}/items/${item.id}`, { context: 'no guarded append' });
    } finally {
      delete store.appendGuarded;
    }
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.artifactVersionId, a2.currentVersion.id);
    assert.deepEqual(r.body.attachments, [attachment(a2)]);
  });

  it('rule: an item shows the current version only of an artifact of the filing\'s scope: a reference to another scope\'s artifact (recorded without the command\'s check) keeps what was written', async () => {
    const f = await newFiling();
    const mine = (await upload(t.baseUrl, editor.apiKey, scope, 'mine', { name: 'mine.txt' })).artifact;
    const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: mine.id })).body;
    // Another tenant's artifact, with versions the filing's readers may not see.
    const stranger = await makeCaller(t.rt);
    const strangerScope = await makeScope(t.rt, stranger.tenantId, [{ userId: stranger.userId, role: 'editor' }]);
    const foreign = (await upload(t.baseUrl, stranger.apiKey, strangerScope, 'secret', { name: 'secret-name.txt' })).artifact;
    const written = { artifactId: foreign.id, artifactVersionId: 'as-written', artifactName: 'as written', artifactVersionNumber: 1 };
    const stream = `managedFiling-${f}`;
    const version = (await t.rt.store.readStream(stream)).length;
    const now = new Date().toISOString();
    await t.rt.store.append(
      stream,
      [{ type: 'ManagedFilingItemChanged', data: { filingId: f, itemId: item.id, changes: { artifactId: foreign.id, artifactVersionId: 'as-written', attachments: [written] }, updatedAt: now } }],
      version,
      {},
    );
    await t.rt.engine.catchUp();
    const shown = await listed(f, item.id);
    assert.equal(shown.artifactVersionId, 'as-written');
    assert.deepEqual(shown.attachments, [written]);
    const patched = await api().patch(`/managed-filings/${f}/items/${item.id}`, { context: 'no leak' });
    assert.equal(patched.status, 200, patched.text);
    assert.equal(patched.body.artifactVersionId, 'as-written');
    assert.deepEqual(patched.body.attachments, [written]);
    assert.ok(!JSON.stringify([shown, patched.body]).includes(foreign.currentVersion.id));
    assert.ok(!JSON.stringify([shown, patched.body]).includes('secret-name'));
  });
});
