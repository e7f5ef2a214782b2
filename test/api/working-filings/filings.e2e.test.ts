import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { IdentityCommands } from '../../../commands/identity/identity-commands';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { SPEC_DISPOSITIONS, SPEC_FILING_TYPES, SPEC_REVIEW_TYPES, SPEC_SCHEDULE_TYPES, SPEC_SUB_TOI, SPEC_TOI_CODES, subToiNeighbours } from '../../support/spec-tables';
import { filingBody, seedListings, type Listings } from '../../support/working-filings';

describe('working filings: create, detail, edit, field options', () => {
  let t: TestRuntime;
  let editor: TestCaller;
  let viewer: TestCaller;
  let manager: TestCaller;
  let scope: string;
  let l: Listings;
  before(async () => {
    t = await startTestRuntime();
    editor = await makeCaller(t.rt);
    viewer = await makeCaller(t.rt, { tenantId: editor.tenantId });
    manager = await makeCaller(t.rt, { tenantId: editor.tenantId });
    scope = await makeScope(t.rt, editor.tenantId, [
      { userId: editor.userId, role: 'editor' },
      { userId: viewer.userId, role: 'viewer' },
      { userId: manager.userId, role: 'manager' },
    ]);
    l = await seedListings(t.rt, scope);
  });
  after(async () => t.close());

  it('rule: POST /managed-filings answers 201, Location and the full record with permissions, filingMode managed', async () => {
    const r = await client(t.baseUrl, editor.apiKey).post('/managed-filings', filingBody(scope, l, { additionalProductIds: [l.product2Id], toiCode: '17.0', subToiCode: '17.0029', dispositionDate: '2025-02-28' }));
    assert.equal(r.status, 201, r.text);
    assert.equal(r.headers.get('location'), `/api/v2/managed-filings/${r.body.id}`);
    assert.equal(r.body.filingMode, 'managed');
    assert.equal(r.body.scope, scope);
    assert.equal(r.body.displayName, r.body.id);
    assert.deepEqual(r.body.permissions, { read: true, edit: true, manageAccess: false });
    assert.deepEqual(r.body.additionalProductIds, [l.product2Id]);
    for (const k of ['predecessorFilingId', 'projectId', 'reviewType', 'disposition', 'effectiveFromNew', 'effectiveFromRenewal', 'description', 'serffTrackingNumber']) assert.equal(r.body[k], null, k);
    assert.equal(r.body.createdAt, r.body.updatedAt);
    const d = await client(t.baseUrl, editor.apiKey).get(`/managed-filings/${r.body.id}`);
    assert.equal(d.status, 200);
    assert.deepEqual(d.body, r.body);
    const asManager = await client(t.baseUrl, manager.apiKey).get(`/managed-filings/${r.body.id}`);
    assert.deepEqual(asManager.body.permissions, { read: true, edit: true, manageAccess: true });
    const asViewer = await client(t.baseUrl, viewer.apiKey).get(`/managed-filings/${r.body.id}`);
    assert.deepEqual(asViewer.body.permissions, { read: true, edit: false, manageAccess: false });
  });

  it('rule: the /insurance/managed-filings POST form creates too', async () => {
    const r = await client(t.baseUrl, editor.apiKey).post('/insurance/managed-filings', filingBody(scope, l));
    assert.equal(r.status, 201);
  });

  it('rule: displayName is the first available SERFF, state or company tracking number', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    assert.equal((await api.post('/managed-filings', filingBody(scope, l, { companyTrackingNumber: 'C-1', stateTrackingNumber: 'S-1' }))).body.displayName, 'S-1');
    assert.equal((await api.post('/managed-filings', filingBody(scope, l, { companyTrackingNumber: 'C-1', serffTrackingNumber: 'SERFF-1', stateTrackingNumber: 'S-1' }))).body.displayName, 'SERFF-1');
    assert.equal((await api.post('/managed-filings', filingBody(scope, l, { companyTrackingNumber: 'C-1' }))).body.displayName, 'C-1');
  });

  it('rule: required fields scope, companyId, jurisdictionId, primaryProductId, filingType', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    for (const k of ['scope', 'companyId', 'jurisdictionId', 'primaryProductId', 'filingType']) {
      const body: Record<string, unknown> = filingBody(scope, l);
      delete body[k];
      const r = await api.post('/managed-filings', body);
      assert.equal(r.status, 400, k);
      assert.equal(r.body.code, 'invalid_request');
      assert.deepEqual(r.body.details[0].path, [k]);
      assert.equal(r.body.details[0].code, 'required', `${k}: ${r.text}`);
    }
  });

  it('rule: enums, lengths, dates, uuids and unknown fields are validated (400 invalid_request)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const bad: [Record<string, unknown>, string][] = [
      [{ filingType: 'bogus' }, 'filingType'],
      [{ reviewType: 'quick' }, 'reviewType'],
      [{ disposition: 'maybe' }, 'disposition'],
      [{ toiCode: '99.9' }, 'toiCode'],
      [{ description: '' }, 'description'],
      [{ description: 'x'.repeat(20001) }, 'description'],
      [{ serffTrackingNumber: 'x'.repeat(257) }, 'serffTrackingNumber'],
      [{ stateTrackingNumber: '' }, 'stateTrackingNumber'],
      [{ dispositionDate: '2025-02-30' }, 'dispositionDate'],
      [{ effectiveFromNew: '2025/01/01' }, 'effectiveFromNew'],
      [{ companyId: 'not-a-uuid' }, 'companyId'],
      [{ additionalProductIds: ['nope'] }, 'additionalProductIds'],
      [{ surprise: 1 }, 'surprise'],
    ];
    for (const [extra, field] of bad) {
      const r = await api.post('/managed-filings', filingBody(scope, l, extra));
      assert.equal(r.status, 400, `${field}: ${r.text}`);
      assert.equal(r.body.code, 'invalid_request');
      assert.equal(r.body.details[0].path[0], field);
    }
    const ok = await api.post('/managed-filings', filingBody(scope, l, { description: 'x'.repeat(20000), serffTrackingNumber: 'x'.repeat(256) }));
    assert.equal(ok.status, 201);
  });

  it('rule: subToiCode must belong to toiCode per the table (21.4 → 21.0004 only; 17.0 → 17.0000..17.0029)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    assert.equal((await api.post('/managed-filings', filingBody(scope, l, { toiCode: '21.4', subToiCode: '21.0004' }))).status, 201);
    assert.equal((await api.post('/managed-filings', filingBody(scope, l, { toiCode: '17.0', subToiCode: '17.0000' }))).status, 201);
    for (const [toi, sub] of [
      ['21.4', '21.4000'],
      ['17.0', '17.1000'],
      [null, '17.0001'],
      ['04.0', '04.0006'],
    ]) {
      const r = await api.post('/managed-filings', filingBody(scope, l, { toiCode: toi, subToiCode: sub }));
      assert.equal(r.status, 400, `${toi}/${sub}`);
      assert.deepEqual(r.body.details[0].path, ['subToiCode']);
    }
  });

  it('rule: PATCH validates subToiCode against the resulting filing, including unchanged fields', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const f = (await api.post('/managed-filings', filingBody(scope, l, { toiCode: '04.0', subToiCode: '04.0003' }))).body;
    assert.equal((await api.patch(`/managed-filings/${f.id}`, { toiCode: '05.0' })).status, 400, 'changing toiCode leaves an incompatible subToiCode');
    assert.equal((await api.patch(`/managed-filings/${f.id}`, { toiCode: null })).status, 400, 'clearing toiCode leaves a subToiCode');
    const cleared = await api.patch(`/managed-filings/${f.id}`, { toiCode: null, subToiCode: null });
    assert.equal(cleared.status, 200);
    assert.equal(cleared.body.toiCode, null);
    assert.equal((await api.patch(`/managed-filings/${f.id}`, { subToiCode: '04.0001' })).status, 400, 'a subToiCode needs a toiCode');
    const set = await api.patch(`/managed-filings/${f.id}`, { toiCode: '05.0', subToiCode: '05.0007', serffTrackingNumber: 'AB-1' });
    assert.equal(set.status, 200);
    assert.equal(set.body.displayName, 'AB-1');
    assert.deepEqual((await api.get(`/managed-filings/${f.id}`)).body, set.body);
    assert.equal((await client(t.baseUrl, viewer.apiKey).patch(`/managed-filings/${f.id}`, { description: 'x' })).status, 403);
  });

  it('rule: companyId, jurisdictionId and product ids must exist in the same scope\'s listings (400)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const other = await makeScope(t.rt, editor.tenantId, [{ userId: editor.userId, role: 'editor' }]);
    const l2 = await seedListings(t.rt, other);
    for (const [extra, path] of [
      [{ companyId: l2.companyId }, ['companyId']],
      [{ jurisdictionId: crypto.randomUUID() }, ['jurisdictionId']],
      [{ primaryProductId: l2.productId }, ['primaryProductId']],
      [{ additionalProductIds: [l.product2Id, l2.product2Id] }, ['additionalProductIds', '1']],
    ] as const) {
      const r = await api.post('/managed-filings', filingBody(scope, l, extra));
      assert.equal(r.status, 400, JSON.stringify(extra));
      assert.deepEqual(r.body.details[0].path, path);
    }
  });

  it('rule: the scope must be a visible active scope of the caller\'s tenant (404) where it may edit (403)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    assert.equal((await api.post('/managed-filings', filingBody('mc:not-a-uuid-scope', l))).status, 404);
    assert.equal((await api.post('/managed-filings', filingBody('mc:-bad', l))).status, 400, 'the scope pattern');
    assert.equal((await api.post('/managed-filings', filingBody(`mc:${'a'.repeat(129)}`, l))).status, 400, 'at most 128 after the prefix');
    assert.equal((await api.post('/managed-filings', filingBody(`mc:${crypto.randomUUID()}`, l))).status, 404);
    const ungranted = await makeScope(t.rt, editor.tenantId);
    assert.equal((await api.post('/managed-filings', filingBody(ungranted, l))).status, 404);
    const foreign = await makeCaller(t.rt);
    const foreignScope = await makeScope(t.rt, foreign.tenantId, [{ userId: foreign.userId, role: 'manager' }]);
    assert.equal((await api.post('/managed-filings', filingBody(foreignScope, l))).status, 404);
    assert.equal((await client(t.baseUrl, viewer.apiKey).post('/managed-filings', filingBody(scope, l))).status, 403);
    const ro = await makeCaller(t.rt, { tenantId: editor.tenantId, readOnly: true });
    await t.rt.container.get(IdentityCommands).grant({ scope, userId: ro.userId, role: 'manager' }, { actor: 'test' });
    assert.equal((await client(t.baseUrl, ro.apiKey).post('/managed-filings', filingBody(scope, l))).status, 403);
    const gone = await makeScope(t.rt, editor.tenantId, [{ userId: editor.userId, role: 'editor' }]);
    await t.rt.container.get(IdentityCommands).deactivateScope(gone, { actor: 'test' });
    assert.equal((await api.post('/managed-filings', filingBody(gone, l))).status, 404);
  });

  it('rule: GET /managed-filings/{id} is 404 for an unknown or malformed id', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    assert.equal((await api.get(`/managed-filings/${crypto.randomUUID()}`)).status, 404);
    assert.equal((await api.get('/managed-filings/nope')).status, 404);
  });

  it('rule: field-options lists the sub-TOI codes of a TOI and the create form\'s enums', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const r = await api.get('/insurance/managed-filings/field-options?field=subToiCode&dependsOn=04.0');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.options.map((o: any) => o.value), ['04.0000', '04.0001', '04.0002', '04.0003', '04.0004', '04.0005']);
    assert.equal(r.body.dependsOn, '04.0');
    assert.deepEqual((await api.get('/insurance/managed-filings/field-options?field=subToiCode&dependsOn=21.4')).body.options.map((o: any) => o.value), ['21.0004']);
    assert.equal((await api.get('/insurance/managed-filings/field-options?field=subToiCode&dependsOn=99.0')).status, 400);
    assert.equal((await api.get('/insurance/managed-filings/field-options?field=filingType')).body.options.length, 9);
    assert.equal((await api.get('/insurance/managed-filings/field-options?field=toiCode')).body.options.length, 37);
    assert.equal((await api.get('/insurance/managed-filings/field-options?field=disposition')).body.options.length, 8);
    assert.equal((await api.get('/insurance/managed-filings/field-options?field=reviewType')).body.options.length, 4);
    assert.equal((await api.get('/insurance/managed-filings/field-options?field=nope')).status, 400);
  });

  it('rule (table-driven, spec text): POST /managed-filings accepts every listed (toiCode, subToiCode) pair and rejects each neighbour and other TOIs\' codes', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const tois = [...SPEC_SUB_TOI.keys()];
    for (const [toi, subs] of SPEC_SUB_TOI) {
      for (const sub of subs) {
        const r = await api.post('/managed-filings', filingBody(scope, l, { toiCode: toi, subToiCode: sub }));
        assert.equal(r.status, 201, `${toi}/${sub}: ${r.text}`);
        assert.deepEqual([r.body.toiCode, r.body.subToiCode], [toi, sub]);
      }
      const next = SPEC_SUB_TOI.get(tois[(tois.indexOf(toi) + 1) % tois.length])!;
      for (const sub of [...subToiNeighbours(toi), next[0], next[next.length - 1]]) {
        const r = await api.post('/managed-filings', filingBody(scope, l, { toiCode: toi, subToiCode: sub }));
        assert.equal(r.status, 400, `${toi}/${sub}`);
        assert.equal(r.body.code, 'invalid_request');
        assert.deepEqual(r.body.details[0].path, ['subToiCode'], `${toi}/${sub}`);
      }
      assert.equal((await api.post('/managed-filings', filingBody(scope, l, { subToiCode: subs[0] }))).status, 400, `${subs[0]} without a toiCode`);
    }
  });

  it('rule (table-driven): PATCH checks the pair on the resulting filing; changing or clearing toiCode needs a compatible subToiCode', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const f = (await api.post('/managed-filings', filingBody(scope, l, { toiCode: '21.4', subToiCode: '21.0004' }))).body;
    for (const toi of SPEC_TOI_CODES.filter((x) => x !== '21.4')) {
      assert.equal((await api.patch(`/managed-filings/${f.id}`, { toiCode: toi })).status, 400, `toiCode ${toi} with the unchanged 21.0004`);
      const sub = SPEC_SUB_TOI.get(toi)![0];
      assert.equal((await api.patch(`/managed-filings/${f.id}`, { subToiCode: sub })).status, 400, `subToiCode ${sub} with the unchanged 21.4`);
    }
    assert.equal((await api.patch(`/managed-filings/${f.id}`, { toiCode: null })).status, 400);
    for (const [toi, subs] of SPEC_SUB_TOI) {
      const r = await api.patch(`/managed-filings/${f.id}`, { toiCode: toi, subToiCode: subs[subs.length - 1] });
      assert.equal(r.status, 200, `${toi}/${subs[subs.length - 1]}: ${r.text}`);
      assert.deepEqual([r.body.toiCode, r.body.subToiCode], [toi, subs[subs.length - 1]]);
    }
    const cleared = await api.patch(`/managed-filings/${f.id}`, { subToiCode: null });
    assert.deepEqual([cleared.status, cleared.body.toiCode, cleared.body.subToiCode], [200, '35.0', null]);
    assert.equal((await api.patch(`/managed-filings/${f.id}`, { toiCode: '04.0' })).status, 200, 'no subToiCode left to conflict');
    assert.equal((await api.patch(`/managed-filings/${f.id}`, { toiCode: null })).status, 200);
  });

  it('rule: field-options dependsOn narrows subToiCode only; every combination the document allows is served (no cross-parameter rule)', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const all = await api.get('/insurance/managed-filings/field-options?field=subToiCode');
    assert.equal(all.status, 200, all.text);
    assert.equal(all.body.dependsOn, null);
    assert.deepEqual(all.body.options.map((o: any) => o.value), [...SPEC_SUB_TOI.values()].flat());
    const plain = (await api.get('/insurance/managed-filings/field-options?field=filingType')).body;
    const withToi = await api.get('/insurance/managed-filings/field-options?field=filingType&dependsOn=04.0');
    assert.equal(withToi.status, 200, withToi.text);
    assert.deepEqual(withToi.body.options, plain.options, 'filingType does not depend on the TOI');
    assert.equal(withToi.body.dependsOn, '04.0');
    const doc = (await client(t.baseUrl).get('/openapi.json')).body;
    const param = doc.paths['/insurance/managed-filings/field-options'].get.parameters.find((p: any) => p.name === 'dependsOn');
    assert.deepEqual(param.schema.enum, SPEC_TOI_CODES, 'the document lists the accepted values');
  });

  it('rule (table-driven): field-options lists exactly the spec\'s sub-TOI codes of every TOI and the spec\'s enums', async () => {
    const api = client(t.baseUrl, editor.apiKey);
    const values = async (q: string) => {
      const r = await api.get(`/insurance/managed-filings/field-options?${q}`);
      assert.equal(r.status, 200, q);
      return r.body.options.map((o: any) => o.value);
    };
    for (const [toi, subs] of SPEC_SUB_TOI) assert.deepEqual(await values(`field=subToiCode&dependsOn=${toi}`), subs, toi);
    assert.deepEqual(await values('field=toiCode'), SPEC_TOI_CODES);
    assert.deepEqual(await values('field=filingType'), SPEC_FILING_TYPES);
    assert.deepEqual(await values('field=reviewType'), SPEC_REVIEW_TYPES);
    assert.deepEqual(await values('field=disposition'), SPEC_DISPOSITIONS);
    assert.deepEqual(await values('field=scheduleType'), SPEC_SCHEDULE_TYPES);
    for (const toi of ['21.0', '02.0', '4.0', '04.00']) assert.equal((await api.get(`/insurance/managed-filings/field-options?field=subToiCode&dependsOn=${toi}`)).status, 400, toi);
  });

  it('the OpenAPI document lists the working-filing routes and marks extensions', async () => {
    const r = await client(t.baseUrl).get('/openapi.json');
    assert.equal(r.status, 200);
    assert.ok(r.body.paths['/managed-filings']);
    assert.ok(r.body.paths['/managed-filings/{filingId}/items/{itemId}'].patch);
    assert.equal(r.body.paths['/managed-filings/{filingId}/items'].post['x-extension'], true);
  });
});
