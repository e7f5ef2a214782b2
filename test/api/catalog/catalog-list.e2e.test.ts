import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { carrier, carrierGroup, catalogFiling, file, importRecords, serffFiling } from '../../support/catalog-records';
import { alteredEnd } from '../../support/altered-end';

type Rec = Record<string, any>;

describe('catalog: GET /insurance/filings and /filings/{id}', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  let full: TestCaller;
  let noSerff: TestCaller;
  const F: Record<string, Rec> = {};
  const get = (c: TestCaller, p: string) => client(t.baseUrl, c.apiKey).get(p);
  const ids = (r: { body: { filings: Rec[] } }) => r.body.filings.map((f) => f.id);

  before(async () => {
    t = await startTestRuntime();
    full = await makeCaller(t.rt, { permissions: ['serff:view'] });
    noSerff = await makeCaller(t.rt, { permissions: [] });
    F.f1 = catalogFiling({ sourceReference: '26-013710', submissionDate: '2025-03-01', files: [file(), file({ role: 'rate', name: 'rates.pdf' })] });
    F.f2 = catalogFiling({ companyName: '100%_Mutual', productName: 'Auto Plan', naicCompanyCodes: ['22222'], carrierIds: ['carrier_22222'], naicGroupCode: null, groupId: null, toiCode: null, subToiCode: null, submissionDate: '2025-02-01' });
    F.f3 = serffFiling({ sourceReference: 'ALSE-134016536', submissionDate: '2025-05-01', filingType: 'Rate/Rule' });
    F.f4 = catalogFiling({ state: 'GA', naicCompanyCodes: null, carrierIds: null, naicGroupCode: null, groupId: null, submissionDate: null, dispositionDate: '2025-01-10' });
    F.f5 = catalogFiling({ naicCompanyCodes: ['44444'], carrierIds: [], naicGroupCode: null, groupId: null, submissionDate: '2024-12-01', companyName: 'Changed Co' });
    F.f6 = catalogFiling({ naicCompanyCodes: ['33333'], carrierIds: ['carrier_changed'], naicGroupCode: null, groupId: null, submissionDate: '2024-11-01', companyName: 'Changed Co' });
    const r = await importRecords(t.rt, [
      carrierGroup(),
      carrierGroup({ id: 'carrier_group_empty', name: 'Empty Group', identifiers: [] }),
      carrier(),
      carrier({ id: 'carrier_old', name: 'Old Acme', identifiers: [{ scheme: 'naic_company', value: '99999' }], mergedInto: 'carrier_12345' }),
      carrier({ id: 'carrier_22222', name: 'Mutual', identifiers: [{ scheme: 'naic_company', value: '22222' }], groupId: null }),
      carrier({ id: 'carrier_nocode', name: 'No Code', identifiers: [], groupId: null }),
      carrier({ id: 'carrier_changed', name: 'Changed Co', identifiers: [{ scheme: 'naic_company', value: '33333' }], groupId: null }),
      // Re-stated later in the file with a new NAIC code: the filter uses the current one.
      carrier({ id: 'carrier_changed', name: 'Changed Co', identifiers: [{ scheme: 'naic_company', value: '44444' }], groupId: null }),
      ...Object.values(F),
    ]);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
  });
  after(async () => t.close());

  it('rule: list records have every field of the spec, nullable ones as null, and no description; /filings is the same handler', async () => {
    const r = await get(full, '/insurance/filings');
    assert.equal(r.status, 200);
    const f4 = r.body.filings.find((f: Rec) => f.id === F.f4.id);
    assert.deepEqual(Object.keys(f4).sort(), [
      'businessType', 'carrierIds', 'companyName', 'dispositionDate', 'filingType', 'filingTypeNormalized', 'groupId', 'id', 'naicCompanyCodes', 'naicGroupCode',
      'normalizedOutcome', 'productName', 'source', 'sourceReference', 'sourceStatus', 'state', 'stateStatusChangedDate', 'subToiCode', 'subTypeOfInsurance',
      'submissionDate', 'toiCode', 'typeOfInsurance',
    ]);
    assert.equal(f4.carrierIds, null);
    assert.equal(f4.submissionDate, null);
    assert.deepEqual(r.body.filings.find((f: Rec) => f.id === F.f5.id).carrierIds, []);
    assert.equal(r.body.nextCursor, null);
    assert.deepEqual((await get(full, '/filings')).body, r.body);
  });

  it('rule: default sort is -submissionDate with nulls last and id breaking ties', async () => {
    const r = await get(full, '/insurance/filings');
    assert.deepEqual(ids(r), [F.f3, F.f1, F.f2, F.f5, F.f6, F.f4].map((f) => f.id));
  });

  it('rule: serff:view — without it SERFF filings are absent, their detail is 404 and source=serff is 403', async () => {
    assert.ok(!ids(await get(noSerff, '/insurance/filings')).includes(F.f3.id));
    assert.equal((await get(noSerff, `/insurance/filings/${F.f3.id}`)).status, 404);
    const r = await get(noSerff, '/insurance/filings?source=serff');
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'forbidden');
    assert.ok(ids(await get(full, '/insurance/filings?source=serff')).includes(F.f3.id));
  });

  it('rule: sourceReference, sourceStatus and filingType need exactly one source', async () => {
    for (const q of ['sourceReference=26-013710', 'sourceStatus=APPROVED', 'filingType=Rate', 'source=serff&source=florida_irfs&sourceReference=26-013710']) {
      const r = await get(full, `/insurance/filings?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'invalid_request');
      assert.equal(r.body.details[0].path[0], 'source');
    }
    assert.deepEqual(ids(await get(full, '/insurance/filings?source=serff&filingType=Rate/Rule')), [F.f3.id]);
  });

  it('rule: SERFF references compare case-insensitively; a lookup with one source and one reference carries description', async () => {
    const r = await get(full, '/insurance/filings?source=serff&sourceReference=alse-134016536');
    assert.deepEqual(ids(r), [F.f3.id]);
    assert.equal(r.body.filings[0].description, F.f3.description);
    assert.equal(r.body.filings[0].sourceReference, 'ALSE-134016536');
  });

  it('rule: Florida references are stored without FL-; an FL- prefixed input is normalized; partial references do not match', async () => {
    assert.deepEqual(ids(await get(full, '/insurance/filings?source=florida_irfs&sourceReference=26-013710')), [F.f1.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?source=florida_irfs&sourceReference=FL-26-013710')), [F.f1.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?source=florida_irfs&sourceReference=26-0137')), []);
  });

  it('rule: description is omitted unless exactly one source and exactly one sourceReference', async () => {
    const two = await get(full, `/insurance/filings?source=florida_irfs&sourceReference=26-013710&sourceReference=${F.f2.sourceReference}`);
    assert.deepEqual(ids(two).sort(), [F.f1.id, F.f2.id].sort());
    assert.ok(two.body.filings.every((f: Rec) => !('description' in f)));
    assert.ok((await get(full, '/insurance/filings?source=florida_irfs')).body.filings.every((f: Rec) => !('description' in f)));
  });

  it('rule: companyName and productName are exact and case-sensitive; repeated values OR', async () => {
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyName=acme%20insurance%20company')), []);
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyName=100%25_Mutual&companyName=Changed%20Co')), [F.f2.id, F.f5.id, F.f6.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?productName=Auto%20Plan')), [F.f2.id]);
  });

  it('rule: ...Contains filters are literal case-insensitive substrings (% and _ are not wildcards)', async () => {
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyNameContains=%25_')), [F.f2.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyNameContains=0%25')), [F.f2.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyNameContains=a_e')), []);
    assert.deepEqual(ids(await get(full, '/insurance/filings?productNameContains=AUTO')), [F.f2.id]);
  });

  it('rule: the carrier filter uses the carrier\'s current NAIC code; a merged carrier resolves to the survivor', async () => {
    assert.deepEqual(ids(await get(full, '/insurance/filings?carrier=carrier_12345')), [F.f3.id, F.f1.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?carrier=carrier_old')), [F.f3.id, F.f1.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?carrier=carrier_changed')), [F.f5.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?carrier=carrier_changed&carrier=carrier_22222')), [F.f2.id, F.f5.id]);
  });

  it('rule: a carrier or group filter that matches no catalog identifier is 404 not_found', async () => {
    for (const q of ['carrier=carrier_unknown', 'carrier=carrier_nocode', 'group=carrier_group_unknown', 'group=carrier_group_empty', 'excludeCarrier=carrier_unknown']) {
      const r = await get(full, `/insurance/filings?${q}`);
      assert.equal(r.status, 404, q);
      assert.equal(r.body.code, 'not_found');
    }
  });

  it('rule: the group filter matches the group\'s NAIC group code and its carriers\' current codes', async () => {
    assert.deepEqual(ids(await get(full, '/insurance/filings?group=carrier_group_100')), [F.f3.id, F.f1.id]);
  });

  it('rule: excludeCarrier excludes the carrier\'s filings and filings whose carrierIds is null or empty', async () => {
    assert.deepEqual(ids(await get(full, '/insurance/filings?excludeCarrier=carrier_12345')), [F.f2.id, F.f6.id]);
  });

  it('rule: date bounds are inclusive and exclude filings lacking the date', async () => {
    assert.deepEqual(ids(await get(full, '/insurance/filings?submissionDateFrom=2025-02-01&submissionDateTo=2025-03-01')), [F.f1.id, F.f2.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?dispositionDateTo=2025-01-10')), [F.f4.id]);
    assert.equal((await get(full, '/insurance/filings?submissionDateFrom=2025-02-30')).status, 400);
    // Postgres has no year 0: a coded 400, never a 500 from the database.
    for (const q of ['submissionDateFrom=0000-01-01', 'dispositionDateTo=0000-12-31', 'stateStatusChangedDateFrom=0000-02-29']) {
      const r = await get(full, `/insurance/filings?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'invalid_request');
    }
  });

  it('rule: TOI and sub-TOI filters never match filings with null codes; distinct filters AND, repeated OR', async () => {
    const toi = ids(await get(full, '/insurance/filings?toi=04.0'));
    assert.ok(!toi.includes(F.f2.id) && toi.includes(F.f1.id));
    assert.deepEqual(ids(await get(full, '/insurance/filings?subToi=04.0003&state=GA')), [F.f4.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?state=ga&state=TX')), [F.f3.id, F.f4.id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?normalizedOutcome=APPROVED&filingTypeNormalized=RATE&state=TX')), [F.f3.id]);
  });

  it('rule: up to three sort keys with -, nulls last, id tie-break', async () => {
    const r = await get(full, '/insurance/filings?sort=state&sort=-companyName&sort=submissionDate');
    assert.equal(r.status, 200);
    // Same state and company: the third key decides (f6 was submitted before f5).
    assert.ok(ids(r).indexOf(F.f6.id) < ids(r).indexOf(F.f5.id));
    const states = r.body.filings.map((f: Rec) => f.state);
    assert.deepEqual(states, [...states].sort());
    const byDisposition = await get(full, '/insurance/filings?sort=dispositionDate');
    assert.equal(byDisposition.body.filings[0].id, F.f4.id);
    assert.equal((await get(full, '/insurance/filings?sort=state&sort=companyName&sort=submissionDate&sort=dispositionDate')).status, 400);
    assert.equal((await get(full, '/insurance/filings?sort=premium')).status, 400);
  });

  it('rule: limit is 1..200, set filters take up to 100 values, text filters up to 500 characters, unknown and repeated scalar parameters are rejected', async () => {
    for (const q of ['limit=0', 'limit=201', 'limit=1&limit=2', `companyName=${'x'.repeat(501)}`, Array.from({ length: 101 }, () => 'state=TX').join('&'), 'bogus=1', 'state=Texas']) {
      const r = await get(full, `/insurance/filings?${q}`);
      assert.equal(r.status, 400, q.slice(0, 40));
      assert.equal(r.body.code, 'invalid_request');
    }
    // Every set filter takes up to 100 values, source too (repeats are harmless ORs).
    for (const q of [Array.from({ length: 100 }, () => 'state=TX').join('&'), 'source=serff&source=florida_irfs&source=serff', Array.from({ length: 100 }, () => 'source=serff').join('&')]) {
      assert.equal((await get(full, `/insurance/filings?${q}`)).status, 200, q.slice(0, 60));
    }
    assert.equal((await get(full, `/insurance/filings?${Array.from({ length: 101 }, () => 'source=serff').join('&')}`)).status, 400);
  });

  it('rule: keyset pages stay correct while new filings arrive (no duplicates, no gaps)', async () => {
    const before = ids(await get(full, '/insurance/filings?limit=200'));
    const seen: string[] = [];
    let r = await get(full, '/insurance/filings?limit=2');
    seen.push(...ids(r));
    // Arrivals on both sides of the cursor, including one with the same date as the last row.
    const arrivals = [
      catalogFiling({ submissionDate: '2026-01-01' }),
      catalogFiling({ submissionDate: '2025-03-01' }),
      catalogFiling({ submissionDate: '2020-01-01' }),
      catalogFiling({ submissionDate: null }),
    ];
    await importRecords(t.rt, arrivals);
    while (r.body.nextCursor) {
      r = await get(full, `/insurance/filings?limit=2&cursor=${r.body.nextCursor}`);
      assert.equal(r.status, 200);
      seen.push(...ids(r));
    }
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    for (const id of before) assert.ok(seen.includes(id), 'no gaps');
    assert.ok(seen.includes(arrivals[2].id as string) && seen.includes(arrivals[3].id as string), 'arrivals after the cursor appear');
  });

  it('rule: cursors are bound to caller, filters, sort and limit', async () => {
    const first = await get(full, '/insurance/filings?limit=1&state=FL');
    const c = first.body.nextCursor;
    assert.ok(c && c.length <= 128);
    assert.equal((await get(full, `/insurance/filings?limit=1&state=FL&cursor=${c}`)).status, 200);
    // The default sort sent explicitly is the same request, not a changed sort.
    assert.equal((await get(full, `/insurance/filings?limit=1&state=FL&sort=-submissionDate&cursor=${c}`)).status, 200);
    for (const [caller, q] of [
      [full, `limit=2&state=FL&cursor=${c}`],
      [full, `limit=1&state=GA&cursor=${c}`],
      [full, `limit=1&state=FL&sort=state&cursor=${c}`],
      [noSerff, `limit=1&state=FL&cursor=${c}`],
      [full, `limit=1&state=FL&cursor=${alteredEnd(c, 2)}`],
    ] as const) {
      const r = await get(caller, `/insurance/filings?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.body.code, 'invalid_cursor');
    }
  });

  it('rule: the detail is the list record plus description and a files summary; both path forms; a native reference is not an ID', async () => {
    const r = await get(full, `/insurance/filings/${F.f1.id}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.description, F.f1.description);
    assert.deepEqual(r.body.files, { count: 2, byRole: { form: 1, rate: 1 } });
    assert.equal(r.body.sourceReference, '26-013710');
    assert.deepEqual((await get(full, `/filings/${F.f1.id}`)).body, r.body);
    assert.equal((await get(full, '/insurance/filings/26-013710')).status, 404);
    assert.equal((await get(full, '/insurance/filings/00000000-0000-4000-8000-000000000000')).status, 404);
  });

  it('rule: ...Contains sees a name imported after the API loaded its copy of the names, on the next request, also while paging', async () => {
    // Loads the names (the API keeps a copy) and takes a cursor before the new names exist.
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyNameContains=Zephyr')), []);
    assert.deepEqual(ids(await get(full, '/insurance/filings?productNameContains=zephyr')), []);
    const first = await get(full, '/insurance/filings?companyNameContains=u&limit=1');
    assert.ok(first.body.nextCursor);
    const arrivals = [
      catalogFiling({ companyName: 'Zephyr Mutual', productName: 'Zephyr Home', submissionDate: '2025-04-01' }),
      catalogFiling({ companyName: 'Zephyr Mutual', submissionDate: '2000-01-01' }),
      catalogFiling({ companyName: 'Old Zoo Mutual', submissionDate: '2000-01-02' }),
    ];
    assert.equal((await importRecords(t.rt, arrivals)).failed, 0);
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyNameContains=zephyr')), [arrivals[0].id, arrivals[1].id]);
    assert.deepEqual(ids(await get(full, '/insurance/filings?companyNameContains=ZEPHYR%20m&productNameContains=yr%20HOME')), [arrivals[0].id]);
    // A name that arrived after the cursor was issued, in the rest of the pages (it sorts after the cursor).
    const seen: string[] = ids(first);
    let r = first;
    while (r.body.nextCursor) {
      r = await get(full, `/insurance/filings?companyNameContains=u&limit=1&cursor=${r.body.nextCursor}`);
      assert.equal(r.status, 200);
      seen.push(...ids(r));
    }
    assert.equal(new Set(seen).size, seen.length, 'no duplicates');
    assert.ok(seen.includes(arrivals[2].id as string) && seen.includes(arrivals[1].id as string), 'new names after the cursor appear');
  });
  it('rule: a repeated first page of a ...Contains term that matched a few names stays exact as filings arrive, move and lose their dates', async () => {
    // The term's page (a union of per-name ranges) against the same names given exactly (one filter).
    const names = ['Quillon North', 'Quillon South', 'Quillon East'];
    const recs = [
      catalogFiling({ companyName: names[0], submissionDate: '2025-06-03' }),
      catalogFiling({ companyName: names[1], submissionDate: '2025-06-02' }),
      catalogFiling({ companyName: names[2], submissionDate: '2025-06-01' }),
      catalogFiling({ companyName: names[0], submissionDate: '2025-05-01' }),
      catalogFiling({ companyName: names[1], submissionDate: null }),
    ];
    const imported = async (records: Rec[]) => assert.equal((await importRecords(t.rt, records)).failed, 0);
    await imported(recs);
    const exact = names.map((n) => `companyName=${encodeURIComponent(n)}`).join('&');
    const same = async (why: string) => {
      for (const extra of ['', '&sort=submissionDate', '&sort=-dispositionDate']) {
        for (let read = 0; read < 2; read++) {
          const [a, b] = [await get(full, `/insurance/filings?companyNameContains=quillon&limit=2${extra}`), await get(full, `/insurance/filings?${exact}&limit=2${extra}`)];
          assert.deepEqual(ids(a), ids(b), `${why}${extra}`);
          assert.equal(a.body.nextCursor === null, b.body.nextCursor === null, `${why}${extra}`);
        }
      }
    };
    await same('first reads');
    await imported([catalogFiling({ companyName: names[1], submissionDate: '2026-01-01' })]);
    await same('a newer filing arrived');
    await imported([{ ...recs[0], submissionDate: '2020-01-01' }, { ...recs[1], submissionDate: null }]);
    await same('filings of the page moved past the bound');
    await imported([{ ...recs[2], submissionDate: null }, { ...recs[3], submissionDate: null }]);
    await same('most filings lost their dates');
  });

  it('rule: ...Contains is a case-insensitive literal substring for names with non-ASCII letters too (the literal case always matches)', async () => {
    const etoile = catalogFiling({ companyName: 'ÉTOILE Générale', productName: 'Ärger Plan', state: 'VT', naicCompanyCodes: null, carrierIds: null, naicGroupCode: null, groupId: null, submissionDate: '2019-01-01' });
    assert.equal((await importRecords(t.rt, [etoile])).failed, 0);
    for (const term of ['ÉTOILE', 'étoile', 'Étoile g', 'GÉNÉRALE']) {
      assert.deepEqual(ids(await get(full, `/insurance/filings?companyNameContains=${encodeURIComponent(term)}`)), [etoile.id], term);
    }
    for (const term of ['Ärger', 'ärger', 'ÄRGER PLAN']) {
      assert.deepEqual(ids(await get(full, `/insurance/filings?productNameContains=${encodeURIComponent(term)}`)), [etoile.id], term);
    }
  });

  it('rule: bad input is a coded 4xx, never a 500: a detail path with malformed percent-encoding is 400 invalid_request, after authentication', async () => {
    for (const p of ['/insurance/filings/%ZZ', '/filings/%E0%A4%A']) {
      const r = await get(full, p);
      assert.equal(r.status, 400, p);
      assert.equal(r.body.code, 'invalid_request');
      assert.equal(r.body.details[0].location, 'path');
      assert.equal(r.headers.get('x-request-id'), r.body.requestId);
    }
    const unauthenticated = await client(t.baseUrl, 'ifrs_bogus').get('/insurance/filings/%ZZ');
    assert.equal(unauthenticated.status, 401);
    assert.equal(unauthenticated.body.code, 'unauthenticated');
  });

  it('rule: SERFF references compare case-insensitively, in the sourceReference sort too (and its keyset pages)', async () => {
    // A source that wrote one tracking number in lower case: it sorts among the others, not after every capital.
    const mixed = [
      serffFiling({ state: 'WY', sourceReference: 'ALSE-134016601' }),
      serffFiling({ state: 'WY', sourceReference: 'alse-134016602' }),
      serffFiling({ state: 'WY', sourceReference: 'ALSE-134016603' }),
      serffFiling({ state: 'WY', sourceReference: 'TXSE-134016604' }),
    ];
    const r = await importRecords(t.rt, mixed);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
    const expected = mixed.map((f) => f.id);
    assert.deepEqual(ids(await get(full, '/insurance/filings?state=WY&sort=sourceReference')), expected);
    assert.deepEqual(ids(await get(full, '/insurance/filings?state=WY&sort=-sourceReference')), [...expected].reverse());
    const paged: string[] = [];
    let page = await get(full, '/insurance/filings?state=WY&sort=sourceReference&limit=1');
    paged.push(...ids(page));
    while (page.body.nextCursor) {
      page = await get(full, `/insurance/filings?state=WY&sort=sourceReference&limit=1&cursor=${page.body.nextCursor}`);
      assert.equal(page.status, 200);
      paged.push(...ids(page));
    }
    assert.deepEqual(paged, expected);
  });
});
