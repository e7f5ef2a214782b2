import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { carrier, carrierGroup, catalogFiling, importRecords, mga, product, serffFiling } from '../../support/catalog-records';

type Rec = Record<string, any>;
const daysAgo = (n: number) => new Date(Date.now() - n * 86400_000).toISOString().slice(0, 10);

describe('directories: carriers, carrier groups, MGAs, products', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  let full: TestCaller;
  let noNaic: TestCaller;
  let noSerff: TestCaller;
  const recent = catalogFiling({ state: 'TX', toiCode: '17.0', subToiCode: null, naicCompanyCodes: ['12345'], submissionDate: daysAgo(30) });
  const old = catalogFiling({ state: 'CA', toiCode: '19.0', subToiCode: null, naicCompanyCodes: ['22222'], submissionDate: daysAgo(800), dispositionDate: daysAgo(700), stateStatusChangedDate: null });
  const serffTx = serffFiling({ state: 'TX', naicCompanyCodes: ['12345'] });
  const get = (c: TestCaller, p: string) => client(t.baseUrl, c.apiKey).get(p);

  before(async () => {
    t = await startTestRuntime();
    full = await makeCaller(t.rt);
    noNaic = await makeCaller(t.rt, { datasets: [] });
    noSerff = await makeCaller(t.rt, { permissions: [] });
    const r = await importRecords(t.rt, [
      carrierGroup(),
      carrierGroup({ id: 'carrier_group_200', name: 'Beta Group', identifiers: [{ scheme: 'naic_group', value: '0200' }] }),
      carrierGroup({ id: 'carrier_group_050', name: 'Acme Group', identifiers: [] }),
      carrier({ aliases: ['Acme Ins', 'ACME Specialty'], grossPremiumWritten: { year: 2024, amount: 1234.5 }, cessionRatio: { year: 2024, value: 0.25 } }),
      carrier({ id: 'carrier_22222', name: 'Zenith Mutual', identifiers: [{ scheme: 'naic_company', value: '22222' }] }),
      carrier({ id: 'carrier_old', name: 'Old Acme', identifiers: [{ scheme: 'naic_company', value: '99999' }], mergedInto: 'carrier_12345' }),
      carrier({ id: 'carrier_solo', name: 'Solo Insurer', identifiers: [], groupId: null, domicile: null, status: null }),
      mga({ aliases: ['C1'], carriers: [{ carrierId: 'carrier_12345', role: 'fronting', sourceNotes: 'per 2024 agreement' }, { carrierId: 'carrier_22222', role: 'reinsurer', sourceNotes: null }] }),
      mga({ id: 'mga_alpha', slug: 'alpha', name: 'Alpha Underwriters', aliases: [], carriers: [] }),
      product({
        id: 'product_cyber',
        name: 'cyber Shield',
        mgaId: 'mga_cyber-one',
        groupId: 'carrier_group_100',
        availability: [
          { state: 'TX', writingCompanyIds: ['carrier_12345'], toiCodes: ['17.0'], subtoiCodes: ['17.0001'], note: null },
          { state: 'CA', writingCompanyIds: ['carrier_22222'], toiCodes: ['17.1'], subtoiCodes: [], note: 'surplus' },
        ],
        claims: [
          { text: 'Approved in Texas', citations: [{ kind: 'filing', filingId: recent.id }] },
          { text: 'Best in class', citations: [{ kind: 'unavailable', reason: 'internal_source' }] },
          { text: 'Filed in Texas', qualification: 'as filed', citations: [{ kind: 'filing', filingId: serffTx.id }, { kind: 'filing', filingId: recent.id }] },
          { text: 'Rated on SERFF', qualification: 'TX only', citations: [{ kind: 'filing', filingId: String(serffTx.id).toUpperCase() }] },
        ],
        filings: [{ state: 'TX', filingId: recent.id }, { state: 'TX', filingId: serffTx.id }, { state: 'CA', filingId: old.id }],
      }),
      product({ id: 'product_auto', name: 'Auto Guard', productType: 'auto', admitted: false, availability: [{ state: 'TX', writingCompanyIds: ['carrier_22222'], toiCodes: ['19.0'], subtoiCodes: [], note: null }] }),
      product({ id: 'product_b', name: 'Basic Cyber', availability: [] }),
      recent,
      old,
      serffTx,
    ]);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
  });
  after(async () => t.close());

  it('rule: without tenant dataset naic, /insurance/carriers* and /insurance/carrier-groups* are 403 dataset_not_enabled (dataset naic)', async () => {
    for (const p of ['/insurance/carriers', '/insurance/carriers/carrier_12345', '/insurance/carrier-groups', '/insurance/carrier-groups/carrier_group_100']) {
      const r = await get(noNaic, p);
      assert.equal(r.status, 403, p);
      assert.equal(r.body.code, 'dataset_not_enabled');
      assert.equal(r.body.dataset, 'naic');
    }
    assert.equal((await get(noNaic, '/insurance/products')).status, 200);
    assert.equal((await get(noNaic, '/insurance/mgas')).status, 200);
  });

  it('rule: carriers list: name matches names and aliases case-insensitively; merged carriers are not listed; shape of the record', async () => {
    const all = await get(full, '/insurance/carriers');
    assert.deepEqual(all.body.carriers.map((c: Rec) => c.id), ['carrier_12345', 'carrier_solo', 'carrier_22222']);
    assert.deepEqual(all.body.carriers[0], {
      id: 'carrier_12345',
      identifiers: [{ scheme: 'naic_company', value: '12345' }],
      name: 'Acme Insurance Company',
      group: { id: 'carrier_group_100', name: 'Acme Group' },
      domicile: 'TX',
      status: 'active',
      grossPremiumWritten: { year: 2024, amount: 1234.5 },
      cessionRatio: { year: 2024, value: 0.25 },
    });
    assert.equal(all.body.carriers[1].group, null);
    assert.deepEqual((await get(full, '/insurance/carriers?name=specialty')).body.carriers.map((c: Rec) => c.id), ['carrier_12345']);
    assert.deepEqual((await get(full, '/insurance/carriers?name=MUTUAL')).body.carriers.map((c: Rec) => c.id), ['carrier_22222']);
  });

  it('rule: carriers identifier=<scheme>:<value> and group filters', async () => {
    assert.deepEqual((await get(full, '/insurance/carriers?identifier=naic_company:22222')).body.carriers.map((c: Rec) => c.id), ['carrier_22222']);
    assert.deepEqual((await get(full, '/insurance/carriers?group=carrier_group_100')).body.carriers.map((c: Rec) => c.id), ['carrier_12345', 'carrier_22222']);
    assert.equal((await get(full, '/insurance/carriers?identifier=12345')).status, 400);
    // Any value after the scheme, line breaks included (what the document's pattern allows in every regex dialect).
    const odd = await get(full, '/insurance/carrier-groups?identifier=naic_group:%0D&identifier=naic_group:%C2%85');
    assert.equal(odd.status, 200, JSON.stringify(odd.body));
    assert.deepEqual(odd.body.carrierGroups, []);
  });

  it('rule: carriers state and toi filters reflect catalog filing activity in the last 12 months (not domicile)', async () => {
    assert.deepEqual((await get(full, '/insurance/carriers?state=TX')).body.carriers.map((c: Rec) => c.id), ['carrier_12345']);
    assert.deepEqual((await get(full, '/insurance/carriers?toi=17.0')).body.carriers.map((c: Rec) => c.id), ['carrier_12345']);
    // Zenith filed in CA, but two years ago.
    assert.deepEqual((await get(full, '/insurance/carriers?state=CA')).body.carriers, []);
  });

  it('rule: carriers use offset pagination with nextCursor', async () => {
    const p1 = await get(full, '/insurance/carriers?limit=2');
    assert.equal(p1.body.carriers.length, 2);
    const p2 = await get(full, `/insurance/carriers?limit=2&cursor=${p1.body.nextCursor}`);
    assert.deepEqual(p2.body.carriers.map((c: Rec) => c.id), ['carrier_22222']);
    assert.equal(p2.body.nextCursor, null);
  });

  it('rule: carrier detail has aliases, groupMembers and mgas; a merged carrier\'s id answers with the survivor\'s record', async () => {
    const r = await get(full, '/insurance/carriers/carrier_12345');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.aliases, ['Acme Ins', 'ACME Specialty']);
    assert.deepEqual(r.body.groupMembers, [{ id: 'carrier_22222', name: 'Zenith Mutual' }]);
    assert.deepEqual(r.body.mgas, [{ id: 'mga_cyber-one', name: 'Cyber One MGA', role: 'fronting', sourceNotes: 'per 2024 agreement' }]);
    assert.deepEqual((await get(full, '/insurance/carriers/carrier_old')).body, r.body);
    assert.equal((await get(full, '/insurance/carriers/carrier_nope')).status, 404);
  });

  it('rule: carrier groups: ordered by name then id; identifier keeps padding; 24-hour bound cursors; invalid_cursor', async () => {
    const all = await get(full, '/insurance/carrier-groups');
    assert.deepEqual(all.body.carrierGroups.map((g: Rec) => g.id), ['carrier_group_050', 'carrier_group_100', 'carrier_group_200']);
    assert.deepEqual(all.body.carrierGroups[1], { id: 'carrier_group_100', name: 'Acme Group', identifiers: [{ scheme: 'naic_group', value: '0100' }] });
    assert.deepEqual((await get(full, '/insurance/carrier-groups?identifier=naic_group:0100')).body.carrierGroups.map((g: Rec) => g.id), ['carrier_group_100']);
    assert.deepEqual((await get(full, '/insurance/carrier-groups?identifier=naic_group:100')).body.carrierGroups, []);
    assert.deepEqual((await get(full, '/insurance/carrier-groups?name=beta')).body.carrierGroups.map((g: Rec) => g.id), ['carrier_group_200']);
    const p1 = await get(full, '/insurance/carrier-groups?limit=2');
    const p2 = await get(full, `/insurance/carrier-groups?limit=2&cursor=${p1.body.nextCursor}`);
    assert.deepEqual(p2.body.carrierGroups.map((g: Rec) => g.id), ['carrier_group_200']);
    const bad = await get(full, `/insurance/carrier-groups?limit=3&cursor=${p1.body.nextCursor}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_cursor');
    const d = await get(full, '/insurance/carrier-groups/carrier_group_100');
    assert.deepEqual(d.body.members.map((m: Rec) => m.id), ['carrier_12345', 'carrier_22222']);
    assert.equal((await get(full, '/insurance/carrier-groups/0100')).status, 404);
  });

  it('rule: MGAs: name matches names and aliases; detail lists backing carriers with role and sourceNotes', async () => {
    assert.deepEqual((await get(full, '/insurance/mgas')).body.mgas.map((m: Rec) => m.id), ['mga_alpha', 'mga_cyber-one']);
    assert.deepEqual((await get(full, '/insurance/mgas?name=c1')).body.mgas.map((m: Rec) => m.id), ['mga_cyber-one']);
    const p1 = await get(full, '/insurance/mgas?limit=1');
    assert.deepEqual((await get(full, `/insurance/mgas?limit=1&cursor=${p1.body.nextCursor}`)).body.mgas.map((m: Rec) => m.id), ['mga_cyber-one']);
    const d = await get(full, '/insurance/mgas/mga_cyber-one');
    assert.deepEqual(d.body.carriers, [
      { id: 'carrier_12345', name: 'Acme Insurance Company', role: 'fronting', sourceNotes: 'per 2024 agreement' },
      { id: 'carrier_22222', name: 'Zenith Mutual', role: 'reinsurer', sourceNotes: null },
    ]);
  });

  it('rule: products are sorted by case-insensitive name then id, private and not cacheable, with availabilitySummary of every configured state', async () => {
    const r = await get(full, '/insurance/products?state=TX');
    assert.equal(r.headers.get('cache-control'), 'private, no-store');
    assert.deepEqual(r.body.products.map((p: Rec) => p.id), ['product_auto', 'product_cyber']);
    const cyber = r.body.products[1];
    assert.deepEqual(cyber.availabilitySummary, { states: ['TX', 'CA'], stateCount: 2 });
    assert.deepEqual(cyber.mga, { id: 'mga_cyber-one', name: 'Cyber One MGA' });
    assert.deepEqual(cyber.group, { id: 'carrier_group_100', name: 'Acme Group' });
    assert.ok(!('availability' in cyber));
    assert.deepEqual((await get(full, '/products')).body.products.map((p: Rec) => p.id), ['product_auto', 'product_b', 'product_cyber']);
  });

  it('rule: product carrier, state, toi and subToi must match within the same availability row', async () => {
    const ids = async (q: string) => (await get(full, `/insurance/products?${q}`)).body.products.map((p: Rec) => p.id);
    assert.deepEqual(await ids('carrier=carrier_12345&state=TX'), ['product_cyber']);
    assert.deepEqual(await ids('carrier=carrier_12345&state=CA'), []);
    assert.deepEqual(await ids('carrier=12345&toi=17.0'), ['product_cyber']);
    assert.deepEqual(await ids('carrier=012345&toi=17.0'), ['product_cyber'], 'a NAIC code normalized to five digits');
    assert.deepEqual(await ids('carrier=carrier_old&subToi=17.0001'), ['product_cyber']);
    assert.deepEqual(await ids('state=CA&toi=17.0'), []);
    assert.deepEqual(await ids('state=CA&state=TX&toi=19.0'), ['product_auto']);
  });

  it('rule: product name, mga, type, admitted and group filters (group by id or NAIC code with leading zeros normalized)', async () => {
    const ids = async (q: string) => (await get(full, `/insurance/products?${q}`)).body.products.map((p: Rec) => p.id);
    assert.deepEqual(await ids('name=CYBER'), ['product_b', 'product_cyber']);
    assert.deepEqual(await ids('mga=cyber-one'), ['product_cyber']);
    assert.deepEqual(await ids('type=auto'), ['product_auto']);
    assert.deepEqual(await ids('type=Auto'), []);
    assert.deepEqual(await ids('admitted=false'), ['product_auto']);
    assert.deepEqual(await ids('group=0100'), ['product_cyber']);
    assert.deepEqual(await ids('group=100'), ['product_cyber']);
    assert.deepEqual(await ids('group=00000100'), ['product_cyber'], 'any number of leading zeros');
    assert.deepEqual(await ids('group=carrier_group_100'), ['product_cyber']);
  });

  it('rule: products reject unknown parameters, repeated scalar parameters and malformed values', async () => {
    for (const q of ['bogus=1', 'admitted=true&admitted=false', 'limit=1&limit=2', 'mga=Not_A_Slug', 'state=TX,CA', `name=${'x'.repeat(201)}`, 'limit=201']) {
      const r = await get(full, `/insurance/products?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'invalid_request');
    }
    const p1 = await get(full, '/insurance/products?limit=2');
    const p2 = await get(full, `/insurance/products?limit=2&cursor=${p1.body.nextCursor}`);
    assert.deepEqual(p2.body.products.map((p: Rec) => p.id), ['product_cyber']);
  });

  it('rule: product cursors are offset-based and live (no binding): a cursor continues at its offset whatever the filters, limit or caller; a tampered one is invalid_cursor', async () => {
    const p1 = await get(full, '/insurance/products?limit=1');
    assert.deepEqual(p1.body.products.map((p: Rec) => p.id), ['product_auto']);
    const c = p1.body.nextCursor;
    // The same offset (1) under another limit, other filters, the other path form and another caller.
    assert.deepEqual((await get(full, `/insurance/products?limit=2&cursor=${c}`)).body.products.map((p: Rec) => p.id), ['product_b', 'product_cyber']);
    assert.deepEqual((await get(full, `/products?name=cyber&cursor=${c}`)).body.products.map((p: Rec) => p.id), ['product_cyber']);
    assert.deepEqual((await get(noNaic, `/insurance/products?cursor=${c}`)).body.products.map((p: Rec) => p.id), ['product_b', 'product_cyber']);
    const tampered = c.slice(0, 20) + (c[20] === 'A' ? 'B' : 'A') + c.slice(21);
    const bad = await get(full, `/insurance/products?cursor=${tampered}`);
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_cursor');
  });

  it('rule: product detail has complete availability with writingCompanies {id, name}; claims keep citations; internal_source claims are verified: false', async () => {
    const r = await get(full, '/insurance/products/product_cyber');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.availability[0], { state: 'TX', writingCompanies: [{ id: 'carrier_12345', name: 'Acme Insurance Company' }], toiCodes: ['17.0'], subtoiCodes: ['17.0001'], note: null });
    assert.equal(r.body.availability.length, 2);
    assert.deepEqual(r.body.claims[0], { text: 'Approved in Texas', citations: [{ kind: 'filing', filingId: recent.id }], verified: true });
    assert.deepEqual(r.body.claims[1], { text: 'Best in class', citations: [{ kind: 'unavailable', reason: 'internal_source' }], verified: false });
    assert.equal((await get(full, '/insurance/products/product_nope')).status, 404);
  });

  it('rule: product claims withhold citations of filings the caller may not see (SERFF without serff:view); the claim keeps its text and qualifications', async () => {
    const limited = await get(noSerff, '/insurance/products/product_cyber');
    assert.equal(limited.status, 200);
    assert.ok(!limited.text.toLowerCase().includes(String(serffTx.id).toLowerCase()), 'no SERFF filing id in the answer');
    assert.deepEqual(limited.body.claims.slice(2), [
      { text: 'Filed in Texas', qualification: 'as filed', citations: [{ kind: 'filing', filingId: recent.id }], verified: true },
      { text: 'Rated on SERFF', qualification: 'TX only', citations: [], verified: false },
    ]);
    assert.deepEqual(limited.body.claims[0].citations, [{ kind: 'filing', filingId: recent.id }]);
    const viewer = await get(full, '/insurance/products/product_cyber');
    assert.deepEqual(viewer.body.claims.slice(2), [
      { text: 'Filed in Texas', qualification: 'as filed', citations: [{ kind: 'filing', filingId: serffTx.id }, { kind: 'filing', filingId: recent.id }], verified: true },
      { text: 'Rated on SERFF', qualification: 'TX only', citations: [{ kind: 'filing', filingId: String(serffTx.id).toUpperCase() }], verified: true },
    ]);
  });

  it('rule: availability filings are the product\'s catalog filings in that state, as catalog records, subject to serff:view', async () => {
    const r = await get(full, '/insurance/products/product_cyber/availability/TX/filings');
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.filings.map((f: Rec) => f.id).sort(), [recent.id, serffTx.id].sort());
    assert.equal(r.body.nextCursor, null);
    const limited = await get(noSerff, '/insurance/products/product_cyber/availability/TX/filings');
    assert.deepEqual(limited.body.filings.map((f: Rec) => f.id), [recent.id]);
    assert.deepEqual((await get(full, '/insurance/products/product_cyber/availability/CA/filings')).body.filings.map((f: Rec) => f.id), [old.id]);
  });
});
