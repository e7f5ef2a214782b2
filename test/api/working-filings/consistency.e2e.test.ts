import assert from 'node:assert/strict';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload, type Listings } from '../../support/working-filings';

/**
 * Consistency as a client sees it (DESIGN.md, read-your-writes: a write does not answer before the
 * projections serving the matching GETs reached it), checked under 16 concurrent clients, each of
 * which reads its own write back at once.
 */
describe('working filings: read-your-writes and live cursors under concurrency', () => {
  let t: TestRuntime;
  let ed: TestCaller;
  let ed2: TestCaller;
  let scope: string;
  let l: Listings;
  let art: { id: string };
  const CLIENTS = 16;
  before(async () => {
    t = await startTestRuntime();
    ed = await makeCaller(t.rt);
    ed2 = await makeCaller(t.rt, { tenantId: ed.tenantId });
    scope = await makeScope(t.rt, ed.tenantId, [
      { userId: ed.userId, role: 'manager' },
      { userId: ed2.userId, role: 'editor' },
    ]);
    l = await seedListings(t.rt, scope);
    art = (await upload(t.baseUrl, ed.apiKey, scope, 'ryw')).artifact;
  });
  after(async () => t.close());

  const api = () => client(t.baseUrl, ed.apiKey);
  const parallel = <T>(n: number, f: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => f(i)));
  const allPages = async (first: string, field: string) => {
    const out: any[] = [];
    let cursor: string | null = null;
    do {
      const r: { status: number; text: string; body: any } = await api().get(first + (cursor ? `${first.includes('?') ? '&' : '?'}cursor=${encodeURIComponent(cursor)}` : ''));
      assert.equal(r.status, 200, r.text);
      out.push(...r.body[field]);
      cursor = r.body.nextCursor;
    } while (cursor);
    return out;
  };
  const events = async (f: string) => allPages(`/managed-filings/${f}/events?limit=100`, 'events');

  it('rule (DESIGN read-your-writes): each of 16 concurrent creates is at once in the detail, the history and both cross-scope list forms', async function () {
    this.timeout(20_000);
    await parallel(CLIENTS, async (i) => {
      const c = await api().post('/managed-filings', filingBody(scope, l, { description: `create ${i}` }));
      assert.equal(c.status, 201, c.text);
      const d = await api().get(`/managed-filings/${c.body.id}`);
      assert.equal(d.status, 200);
      assert.equal(d.body.description, `create ${i}`);
      assert.ok((await events(c.body.id)).some((e) => e.type === 'ManagedFilingCreated'));
      for (const p of ['/insurance/managed-filings?limit=100', '/managed-filings?limit=100']) {
        assert.ok((await allPages(p, 'filings')).some((f) => f.id === c.body.id), `${p} misses ${c.body.id}`);
      }
    });
  });

  it('rule (DESIGN read-your-writes): filing PATCH, item POST/PATCH and every comment write show at once in their GETs, 16 clients at a time', async function () {
    this.timeout(20_000);
    await parallel(CLIENTS, async (i) => {
      const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
      assert.equal((await api().patch(`/managed-filings/${f}`, { description: `edited ${i}` })).status, 200);
      assert.equal((await api().get(`/managed-filings/${f}`)).body.description, `edited ${i}`);
      assert.ok((await allPages('/managed-filings?limit=100', 'filings')).some((x) => x.id === f && x.description === `edited ${i}`));

      const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: art.id, context: 'new' })).body;
      assert.deepEqual((await api().get(`/managed-filings/${f}/items`)).body.items.map((x: any) => [x.id, x.context]), [[item.id, 'new']]);
      assert.equal((await api().patch(`/managed-filings/${f}/items/${item.id}`, { context: `ctx ${i}` })).status, 200);
      assert.equal((await api().get(`/managed-filings/${f}/items`)).body.items[0].context, `ctx ${i}`);

      const c = `/managed-filings/${f}/comments`;
      const thread = (await api().post(c, { body: 'first' })).body;
      assert.deepEqual((await api().get(`${c}?status=open`)).body.comments.map((x: any) => x.id), [thread.id]);
      assert.equal((await api().patch(`${c}/${thread.id}`, { body: 'edited' })).status, 200);
      assert.equal((await api().get(c)).body.comments[0].body, 'edited');
      assert.equal((await api().post(`${c}/${thread.id}/resolve`, {})).status, 200);
      assert.ok((await api().get(`${c}?status=resolved`)).body.comments.some((x: any) => x.id === thread.id));
      assert.deepEqual((await api().get(`${c}?status=open`)).body.comments, []);
      assert.equal((await api().post(`${c}/${thread.id}/reopen`, {})).status, 200);
      assert.ok((await api().get(`${c}?status=open`)).body.comments.some((x: any) => x.id === thread.id));
      assert.equal((await api().delete(`${c}/${thread.id}`)).status, 204);
      assert.equal((await api().get(c)).body.comments.find((x: any) => x.id === thread.id).deleted, true);
      const types = (await events(f)).map((e) => e.type);
      assert.equal(types.length, 9, types.join());
    });
  });

  it('rule (DESIGN read-your-writes): an upload completion is at once readable as its artifact', async function () {
    this.timeout(20_000);
    await parallel(8, async (i) => {
      const a = (await upload(t.baseUrl, ed.apiKey, scope, `file ${i}`)).artifact;
      const r = await api().get(`/artifacts/${a.id}`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.currentVersion.id, a.currentVersion.id);
    });
  });

  it('rule (DESIGN read-your-writes): a write that changes nothing answers only what the GETs already show (concurrent identical resolves and PATCHes)', async function () {
    this.timeout(20_000);
    for (let round = 0; round < 5; round++) {
      const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
      const c = `/managed-filings/${f}/comments`;
      const thread = (await api().post(c, { body: 'race' })).body;
      const item = (await api().post(`/managed-filings/${f}/items`, { artifactId: art.id })).body;
      await parallel(CLIENTS, async (i) => {
        const who = client(t.baseUrl, i % 2 ? ed.apiKey : ed2.apiKey);
        const r = await who.post(`${c}/${thread.id}/resolve`, {});
        assert.equal(r.status, 200);
        assert.equal(r.body.status, 'resolved');
        assert.ok((await who.get(`${c}?status=resolved`)).body.comments.some((x: any) => x.id === thread.id), 'the resolve answered is not in the list yet');
        const p = await who.patch(`/managed-filings/${f}`, { description: `same ${round}` });
        assert.equal(p.body.description, `same ${round}`);
        assert.equal((await who.get(`/managed-filings/${f}`)).body.description, `same ${round}`, 'the PATCH answered is not in the detail yet');
        const q = await who.patch(`/managed-filings/${f}/items/${item.id}`, { context: `same ${round}` });
        assert.equal(q.body.context, `same ${round}`);
        assert.equal((await who.get(`/managed-filings/${f}/items`)).body.items[0].context, `same ${round}`, 'the item PATCH answered is not listed yet');
      });
    }
  });

  it('rule (DESIGN read-your-writes): a no-op write answers only once the GETs show the state it answers (another writer\'s event not projected yet)', async function () {
    this.timeout(20_000);
    const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
    const thread = (await api().post(`/managed-filings/${f}/comments`, { body: 'held' })).body;
    // Another writer (an import, another API process) appends while an older transaction holds the
    // projectors' snapshot horizon: the event is committed, readable in its stream, not projected yet.
    const trx = await t.rt.db.knex.transaction();
    await trx.raw('select pg_current_xact_id()');
    const now = new Date().toISOString();
    await t.rt.store.append(`managedFiling-${f}`, [{ type: 'ManagedFilingUpdated', data: { filingId: f, changes: { description: 'theirs' }, updatedAt: now } }], 'any', { tenantId: ed.tenantId, actor: 'other', requestId: null });
    const release = setTimeout(() => void trx.commit(), 400);
    try {
      // The same change again appends nothing; its answer shows 'theirs', so must the GET that follows.
      const p = await api().patch(`/managed-filings/${f}`, { description: 'theirs' });
      assert.equal(p.status, 200);
      assert.equal(p.body.description, 'theirs');
      assert.equal((await api().get(`/managed-filings/${f}`)).body.description, 'theirs');
    } finally {
      clearTimeout(release);
      if (!trx.isCompleted()) await trx.commit();
    }
    // The same for a repeated status: the second resolve is a no-op on a resolve not projected yet.
    const trx2 = await t.rt.db.knex.transaction();
    await trx2.raw('select pg_current_xact_id()');
    const sc = { id: '00000000-0000-4000-8000-000000000001', threadId: thread.id, parentCommentId: thread.id, commentType: 'status_change', actor: 'other', body: '', data: { status: 'resolved', previousStatus: 'open' }, deleted: false, editedAt: null, createdAt: now };
    await t.rt.store.append(`managedFiling-${f}`, [{ type: 'FilingThreadResolved', data: { filingId: f, threadId: thread.id, comment: sc } }], 'any', { tenantId: ed.tenantId, actor: 'other', requestId: null });
    const release2 = setTimeout(() => void trx2.commit(), 400);
    try {
      const r = await api().post(`/managed-filings/${f}/comments/${thread.id}/resolve`, {});
      assert.equal(r.status, 200);
      assert.equal(r.body.status, 'resolved');
      assert.ok((await api().get(`/managed-filings/${f}/comments?status=resolved`)).body.comments.some((x: any) => x.id === thread.id));
    } finally {
      clearTimeout(release2);
      if (!trx2.isCompleted()) await trx2.commit();
    }
  });

  it('rule (issue 5, 100 concurrent PATCHes): also for filing fields and comment edits: all succeed, the history holds all, the GET shows the last', async function () {
    this.timeout(20_000);
    const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
    const rs = await parallel(100, (i) => api().patch(`/managed-filings/${f}`, { description: `d ${i}`, companyTrackingNumber: `C-${i}` }));
    assert.deepEqual(rs.map((r) => r.status), Array(100).fill(200));
    const changes = (await events(f)).filter((e) => e.type === 'ManagedFilingUpdated');
    assert.equal(changes.length, 100);
    const last = changes[changes.length - 1].data.changes;
    const shown = (await api().get(`/managed-filings/${f}`)).body;
    assert.equal(shown.description, last.description);
    assert.equal(shown.companyTrackingNumber, last.companyTrackingNumber);

    const thread = (await api().post(`/managed-filings/${f}/comments`, { body: 'start' })).body;
    const cs = await parallel(100, (i) => api().patch(`/managed-filings/${f}/comments/${thread.id}`, { body: `b ${i}` }));
    assert.deepEqual(cs.map((r) => r.status), Array(100).fill(200));
    const edits = (await events(f)).filter((e) => e.type === 'FilingCommentEdited');
    assert.equal(edits.length, 100);
    assert.equal((await api().get(`/managed-filings/${f}/comments`)).body.comments[0].body, edits[edits.length - 1].data.body);
  });

  it('rule (issue 5, 100 concurrent PATCHes): also when they name listing ids (checked before the append): all succeed, the detail shows the last', async function () {
    this.timeout(20_000);
    const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
    const rs = await parallel(100, (i) => api().patch(`/managed-filings/${f}`, { primaryProductId: i % 2 ? l.productId : l.product2Id, description: `p ${i}` }));
    assert.deepEqual(rs.map((r) => r.status), Array(100).fill(200));
    const changes = (await events(f)).filter((e) => e.type === 'ManagedFilingUpdated');
    assert.equal(changes.length, 100);
    const shown = (await api().get(`/managed-filings/${f}`)).body;
    assert.equal(shown.description, changes[changes.length - 1].data.changes.description);
    const lastProduct = [...changes].reverse().find((e) => e.data.changes.primaryProductId)?.data.changes.primaryProductId ?? l.productId;
    assert.equal(shown.primaryProductId, lastProduct);
  });

  it('rule (issue 5, 100 concurrent writes): 100 concurrent resolves and reopens of one thread all succeed; the list shows the status of the last status event', async function () {
    this.timeout(20_000);
    const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
    const thread = (await api().post(`/managed-filings/${f}/comments`, { body: 'toggle' })).body;
    const rs = await parallel(100, (i) => api().post(`/managed-filings/${f}/comments/${thread.id}/${i % 2 ? 'reopen' : 'resolve'}`, {}));
    assert.deepEqual(rs.map((r) => r.status), Array(100).fill(200));
    const status = (await events(f)).filter((e) => e.type === 'FilingThreadResolved' || e.type === 'FilingThreadReopened');
    assert.ok(status.length >= 1);
    const last = status[status.length - 1].type === 'FilingThreadResolved' ? 'resolved' : 'open';
    const listed = (await api().get(`/managed-filings/${f}/comments?limit=100&status=${last}`)).body.comments;
    assert.ok(listed.some((x: any) => x.id === thread.id && x.status === last));
    const shown = (await allPages(`/managed-filings/${f}/comments?limit=100`, 'comments')).filter((x) => x.commentType === 'status_change');
    assert.equal(shown.length, status.length, 'every status event is in the timeline');
  });

  it('rule (issue 5, concurrent writes): 100 concurrent item POSTs and 100 comment POSTs to one filing all succeed and each is listed once', async function () {
    this.timeout(20_000);
    const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
    const items = await parallel(100, () => api().post(`/managed-filings/${f}/items`, { artifactId: art.id }));
    const comments = await parallel(100, (i) => api().post(`/managed-filings/${f}/comments`, { body: `c ${i}` }));
    assert.deepEqual([...items, ...comments].map((r) => r.status), Array(200).fill(201));
    const listedItems = (await allPages(`/managed-filings/${f}/items?limit=30`, 'items')).map((x) => x.id);
    assert.deepEqual([...listedItems].sort(), items.map((r) => r.body.id).sort());
    const listedComments = (await allPages(`/managed-filings/${f}/comments?limit=30&status=open`, 'comments')).map((x) => x.id);
    assert.deepEqual([...listedComments].sort(), comments.map((r) => r.body.id).sort());
    assert.equal((await events(f)).length, 201);
  });

  it('rule (live keysets): paging items, comments and the cross-scope list while others insert: no duplicates, nothing present before the walk is missed', async function () {
    this.timeout(20_000);
    const own = await makeScope(t.rt, ed.tenantId, [{ userId: ed.userId, role: 'editor' }]);
    const ol = await seedListings(t.rt, own);
    const a = (await upload(t.baseUrl, ed.apiKey, own, 'keyset')).artifact;
    const f = (await api().post('/managed-filings', filingBody(own, ol))).body.id;
    const items: string[] = [];
    const comments: string[] = [];
    for (let i = 0; i < 12; i++) {
      items.push((await api().post(`/managed-filings/${f}/items`, { artifactId: a.id })).body.id);
      comments.push((await api().post(`/managed-filings/${f}/comments`, { body: `c ${i}` })).body.id);
    }
    const filings = (await allPages('/managed-filings?limit=100', 'filings')).map((x) => x.id);
    const walk = async (first: string, field: string, insert: () => Promise<unknown>) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      // Inserts during the first pages only: an ascending list would otherwise grow as fast as it is read.
      let pages = 0;
      do {
        const r: { status: number; text: string; body: any } = await api().get(first + (cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''));
        assert.equal(r.status, 200, r.text);
        seen.push(...r.body[field].map((x: any) => x.id));
        cursor = r.body.nextCursor;
        if (pages++ < 5) await Promise.all([insert(), insert()]);
      } while (cursor);
      return seen;
    };
    const check = (seen: string[], before: string[]) => {
      assert.equal(new Set(seen).size, seen.length, 'duplicates');
      for (const id of before) assert.ok(seen.includes(id), `missed ${id}`);
    };
    check(await walk(`/managed-filings/${f}/items?limit=2`, 'items', () => api().post(`/managed-filings/${f}/items`, { artifactId: a.id })), items);
    check(await walk(`/managed-filings/${f}/comments?limit=2`, 'comments', () => api().post(`/managed-filings/${f}/comments`, { body: 'later' })), comments);
    check(await walk('/managed-filings?limit=3', 'filings', () => api().post('/managed-filings', filingBody(own, ol))), filings);
  });

  it('rule (error order): 401 before 400 and 404 on every write route; 404 before 403 for a filing the caller cannot see', async () => {
    const f = (await api().post('/managed-filings', filingBody(scope, l))).body.id;
    const bad = client(t.baseUrl, 'ifrs_notakeyatall');
    const none = client(t.baseUrl);
    for (const c of [bad, none]) {
      assert.equal((await c.post('/managed-filings', { nope: 1 })).status, 401);
      assert.equal((await c.patch(`/managed-filings/${f}`, { nope: 1 })).status, 401);
      assert.equal((await c.patch('/managed-filings/00000000-0000-0000-0000-000000000000', { description: 'x' })).status, 401);
      assert.equal((await c.post(`/managed-filings/${f}/items`, { nope: 1 })).status, 401);
      assert.equal((await c.patch(`/managed-filings/${f}/items/x`, { nope: 1 })).status, 401);
      assert.equal((await c.post(`/managed-filings/${f}/comments`, {})).status, 401);
      assert.equal((await c.delete(`/managed-filings/${f}/comments/x`)).status, 401);
      assert.equal((await c.post(`/managed-filings/${f}/comments/x/resolve`, { nope: 1 })).status, 401);
      assert.equal((await c.get(`/managed-filings/${f}/items?limit=0`)).status, 401);
      assert.equal((await c.get('/managed-filings?cursor=bogus')).status, 401);
      assert.equal((await c.post('/files/uploads/complete', { confirmations: [] })).status, 401);
    }
    // Another tenant's editor: the filing is not visible, so 404 even for a write it could never make.
    const stranger = await makeCaller(t.rt, { readOnly: true });
    const s = client(t.baseUrl, stranger.apiKey);
    assert.equal((await s.patch(`/managed-filings/${f}`, { description: 'x' })).status, 404);
    assert.equal((await s.post(`/managed-filings/${f}/comments`, { body: 'x' })).status, 404);
    assert.equal((await s.get(`/managed-filings/${f}/items`)).status, 404);
  });
});
