import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload, type Listings } from '../../support/working-filings';

/**
 * The answer of a keyed write rebuilt from the log, for every POST write that appends. A host that died after
 * its append and before storing its answer leaves its key claimed, without an answer, its lease run out: that
 * state is set here directly, so each rebuilt answer can be compared with the answer the write really sent.
 * (test/api/http/idempotency-host-death.e2e.test.ts gets to that state with a real SIGKILL.)
 */
describe('Idempotency-Key: the answer of a write whose host died is rebuilt from the log (extension)', () => {
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
  // Working-filing events only: the upload's indexing appends to the artifact's stream whenever it gets to it.
  const eventCount = async () => Number((await t.rt.db.knex('es_events').whereLike('stream_id', 'managedFiling-%').count<{ count: string }[]>('* as count'))[0].count);
  /** What a host killed after its append leaves: the claim without an answer, its lease run out. */
  const hostDiedBeforeStoringAnswer = async (key: string) => {
    const n = await t.rt.db
      .knex('idempotency_keys')
      .where({ user_id: editor.userId, key })
      .update({ status: null, headers: null, body: null, locked_until: t.rt.db.knex.raw(`now() - interval '1 second'`) });
    assert.equal(n, 1);
  };

  /** Sends a keyed write, forgets its stored answer, retries: the retry must answer the same and write nothing. */
  async function recoversItsAnswer(p: string, body: unknown) {
    const key = crypto.randomUUID();
    const first = await api().post(p, body, { 'Idempotency-Key': key });
    assert.ok(first.status < 300, first.text);
    await hostDiedBeforeStoringAnswer(key);
    const events = await eventCount();
    const retry = await api().post(p, body, { 'Idempotency-Key': key });
    assert.equal(retry.status, first.status, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.equal(retry.headers.get('location'), first.headers.get('location'));
    assert.equal(retry.text, first.text);
    assert.equal(await eventCount(), events, 'the retry wrote nothing');
    const stored = await api().post(p, body, { 'Idempotency-Key': key });
    assert.equal(stored.text, first.text, 'the rebuilt answer is kept for later retries');
    return first.body;
  }

  it('rule: a keyed create, add item, comment, resolve and reopen each answer a retry after their host died with the first answer, written once', async () => {
    const filing = await recoversItsAnswer('/managed-filings', filingBody(scope, l, { description: 'Rebuilt' }));
    const { artifact } = await upload(t.baseUrl, editor.apiKey, scope, 'attached');
    await recoversItsAnswer(`/managed-filings/${filing.id}/items`, { artifactId: artifact.id, context: 'rebuilt item' });
    const comment = await recoversItsAnswer(`/managed-filings/${filing.id}/comments`, { body: 'a thread' });
    await recoversItsAnswer(`/managed-filings/${filing.id}/comments`, { body: 'a reply', parentCommentId: comment.id });
    await recoversItsAnswer(`/managed-filings/${filing.id}/comments/${comment.id}/resolve`, {});
    await recoversItsAnswer(`/managed-filings/${filing.id}/comments/${comment.id}/reopen`, {});
  });

  it('rule: a host that noted its stream but died before its append committed leaves no marked event: the retry runs the command', async () => {
    const filing = await api().post('/managed-filings', filingBody(scope, l, { description: 'Append lost' }));
    const key = crypto.randomUUID();
    const first = await api().post(`/managed-filings/${filing.body.id}/comments`, { body: 'lost' }, { 'Idempotency-Key': key });
    assert.equal(first.status, 201, first.text);
    // As if that append had never committed: the stream is noted, but no event in it carries the key.
    await t.rt.db.knex.raw(`update es_events set metadata = metadata - 'idempotencyKey' where stream_id = ?`, [`managedFiling-${filing.body.id}`]);
    await hostDiedBeforeStoringAnswer(key);
    const retry = await api().post(`/managed-filings/${filing.body.id}/comments`, { body: 'lost' }, { 'Idempotency-Key': key });
    assert.equal(retry.status, 201, retry.text);
    assert.equal(retry.headers.get('idempotent-replayed'), null);
    assert.notEqual(retry.body.id, first.body.id, 'the command ran again');
  });

  it('rule: the events of a keyed write carry the key identity in their metadata; unkeyed writes carry none', async () => {
    const keyed = await api().post('/managed-filings', filingBody(scope, l, { description: 'Keyed' }), { 'Idempotency-Key': crypto.randomUUID() });
    const plain = await api().post('/managed-filings', filingBody(scope, l, { description: 'Plain' }));
    const metadataOf = async (id: string) => (await t.rt.db.knex('es_events').where({ stream_id: `managedFiling-${id}` }).first<{ metadata: Record<string, unknown> }>('metadata')).metadata;
    assert.match(String((await metadataOf(keyed.body.id)).idempotencyKey), /^[A-Za-z0-9_-]{43}$/);
    assert.equal((await metadataOf(plain.body.id)).idempotencyKey, undefined);
  });
});
