import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, importRecord, seedListings } from '../../support/working-filings';

describe('working filings: scope listings and importers', () => {
  let t: TestRuntime;
  let ana: TestCaller;
  let scope: string;
  before(async () => {
    t = await startTestRuntime();
    ana = await makeCaller(t.rt);
    scope = await makeScope(t.rt, ana.tenantId, [{ userId: ana.userId, role: 'viewer' }]);
  });
  after(async () => t.close());

  it('rule: scope_company / scope_jurisdiction / scope_product imports are repeatable (unchanged, then updated)', async () => {
    const id = crypto.randomUUID();
    assert.deepEqual(await importRecord(t.rt, { type: 'scope_company', scope, id, name: 'Zeta Mutual', naicCompanyCode: '54321' }), { status: 'created' });
    assert.deepEqual(await importRecord(t.rt, { type: 'scope_company', scope, id, name: 'Zeta Mutual', naicCompanyCode: '54321' }), { status: 'unchanged' });
    assert.deepEqual(await importRecord(t.rt, { type: 'scope_company', scope, id, name: 'Zeta Mutual Co', naicCompanyCode: '54321' }), { status: 'updated' });
    await assert.rejects(importRecord(t.rt, { type: 'scope_company', scope: `mc:${crypto.randomUUID()}`, id: crypto.randomUUID(), name: 'x' }), /no such scope/);
    await assert.rejects(importRecord(t.rt, { type: 'scope_jurisdiction', scope, id: crypto.randomUUID(), name: 'Texas' }), /code/);
    await assert.rejects(importRecord(t.rt, { type: 'scope_product', scope, id: 'nope', name: 'x' }), /id/);
    const other = await makeScope(t.rt, ana.tenantId);
    await assert.rejects(importRecord(t.rt, { type: 'scope_company', scope: other, id, name: 'Zeta Mutual Co' }), /another scope/);
  });

  it('rule: GET and POST listings filter by scope (required), name (substring) and code; paginated by name then id', async () => {
    await seedListings(t.rt, scope);
    for (const n of ['Alpha Cyber', 'beta cyber', 'Gamma Auto']) await importRecord(t.rt, { type: 'scope_product', scope, id: crypto.randomUUID(), name: n });
    await t.rt.engine.catchUp();
    const api = client(t.baseUrl, ana.apiKey);
    const companies = await api.get(`/insurance/managed-filings/companies?scope=${scope}`);
    assert.equal(companies.status, 200, companies.text);
    assert.deepEqual(companies.body.companies.map((c: any) => c.name), ['Acme Insurance Co', 'Zeta Mutual Co']);
    assert.deepEqual(Object.keys(companies.body.companies[0]).sort(), ['id', 'naicCompanyCode', 'name', 'scope']);
    const tx = await api.post('/insurance/managed-filings/jurisdictions', { scope, code: 'TX' });
    assert.deepEqual(tx.body.jurisdictions.map((j: any) => [j.code, j.name]), [['TX', 'Texas']]);
    const cyber = await api.get(`/insurance/managed-filings/products?scope=${scope}&name=CYBER`);
    assert.deepEqual(cyber.body.products.map((p: any) => p.name), ['Alpha Cyber', 'beta cyber', 'Cyber Shield', 'Cyber Shield Plus']);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const r: any = await api.post('/insurance/managed-filings/products', { scope, limit: 2, ...(cursor ? { cursor } : {}) });
      names.push(...r.body.products.map((p: any) => p.name));
      cursor = r.body.nextCursor ?? undefined;
    } while (cursor);
    assert.deepEqual(names, ['Alpha Cyber', 'beta cyber', 'Cyber Shield', 'Cyber Shield Plus', 'Gamma Auto']);
    const first = await api.get(`/insurance/managed-filings/products?scope=${scope}&limit=2`);
    assert.equal((await api.get(`/insurance/managed-filings/products?scope=${scope}&limit=2&name=a&cursor=${first.body.nextCursor}`)).body.code, 'invalid_cursor');
    assert.equal((await api.post('/insurance/managed-filings/products', { scope, limit: 2, cursor: first.body.nextCursor })).body.code, 'invalid_cursor', 'GET and POST cursors differ');
    assert.equal((await api.get('/insurance/managed-filings/products')).status, 400, 'scope is required');
    assert.equal((await api.get(`/insurance/managed-filings/products?scope=mc:${crypto.randomUUID()}`)).status, 404);
    const stranger = await makeCaller(t.rt);
    assert.equal((await client(t.baseUrl, stranger.apiKey).get(`/insurance/managed-filings/products?scope=${scope}`)).status, 404);
  });

  it('rule: managed_filing imports create reference or null-mode filings, repeatable; managed is refused', async () => {
    const l = await seedListings(t.rt, scope);
    const id = crypto.randomUUID();
    const rec = { type: 'managed_filing', id, filingMode: 'reference', ...filingBody(scope, l, { serffTrackingNumber: 'ABCD-1234', toiCode: '04.0', subToiCode: '04.0001' }) };
    assert.deepEqual(await importRecord(t.rt, rec), { status: 'created' });
    assert.deepEqual(await importRecord(t.rt, rec), { status: 'unchanged' });
    assert.deepEqual(await importRecord(t.rt, { ...rec, filingMode: null, description: 'legacy' }), { status: 'updated' });
    await t.rt.engine.catchUp();
    const d = await client(t.baseUrl, ana.apiKey).get(`/managed-filings/${id}`);
    assert.equal(d.body.filingMode, null);
    assert.equal(d.body.description, 'legacy');
    assert.equal(d.body.displayName, 'ABCD-1234');
    // A record without filingMode is unclassified legacy data: null, as for filingMode null.
    const { filingMode: _m, ...unclassified } = { ...rec, id: crypto.randomUUID() };
    assert.deepEqual(await importRecord(t.rt, unclassified), { status: 'created' });
    await t.rt.engine.catchUp();
    assert.equal((await client(t.baseUrl, ana.apiKey).get(`/managed-filings/${unclassified.id}`)).body.filingMode, null);
    await assert.rejects(importRecord(t.rt, { ...rec, id: crypto.randomUUID(), filingMode: 'managed' }), /API/);
    await assert.rejects(importRecord(t.rt, { ...rec, id: crypto.randomUUID(), subToiCode: '05.0001' }), /subToiCode/);
    await assert.rejects(importRecord(t.rt, { ...rec, id: crypto.randomUUID(), filingType: 'nope' }), /filingType/);
    const api = client(t.baseUrl, ana.apiKey);
    const events = (await api.get(`/managed-filings/${id}/events`)).body.events;
    assert.deepEqual(events.map((e: any) => e.type), ['ManagedFilingCreated', 'ManagedFilingUpdated']);
  });
});
