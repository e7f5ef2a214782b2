import assert from 'node:assert/strict';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { aContentFile, aFiling, aTextFile, importFiling, pdfOf, type ImportedFiling } from '../../support/catalog-filing-mother';
import { SEARCH_PROJECTION } from '../../../src/read-models/search';
import { FILES_PROJECTION } from '../../../src/read-models/files';
import { carrier, carrierGroup, importRecords } from '../../support/catalog-records';

describe('POST /insurance/filings/search and /filings/search', () => {
  let t: TestRuntime;
  let viewer: TestCaller;
  let plain: TestCaller;
  let wildfire: ImportedFiling;
  let roof: ImportedFiling;
  let serff: ImportedFiling;
  let old: ImportedFiling;
  let undated: ImportedFiling;
  const intent = 'find filings for competitive research';

  before(async () => {
    t = await startTestRuntime();
    viewer = await makeCaller(t.rt);
    plain = await makeCaller(t.rt, { tenantId: viewer.tenantId, permissions: [] });
    wildfire = await importFiling(t.rt, aFiling({ state: 'CA', companyName: 'Golden Bear Mutual', submissionDate: '2024-02-01', sourceReference: '24-012345' }), [
      aTextFile(['Cover letter', 'The wildfire surcharge applies to dwellings in high hazard zones.', 'Schedule of wildfire risk scores'], { name: 'Wildfire Rule.pdf', versionId: 'v3' }),
      aTextFile(['Actuarial memorandum with an indicated change of 6.2% overall'], { name: 'Actuarial Memo.pdf' }),
    ]);
    // The directory the carrier and group filters resolve through: every filing of the mother is carrier_12345
    // (NAIC 12345, group carrier_group_123) but roof, of carrier_54321; carrier_99999 was merged into carrier_54321.
    await importRecords(t.rt, [
      carrierGroup({ id: 'carrier_group_123', identifiers: [{ scheme: 'naic_group', value: '123' }] }),
      carrier({ id: 'carrier_12345', groupId: 'carrier_group_123' }),
      carrier({ id: 'carrier_54321', name: 'Lone Star Casualty', identifiers: [{ scheme: 'naic_company', value: '54321' }], groupId: null }),
      carrier({ id: 'carrier_99999', name: 'Old Star', identifiers: [{ scheme: 'naic_company', value: '99999' }], groupId: null, mergedInto: 'carrier_54321' }),
      carrierGroup({ id: 'carrier_group_empty', name: 'No Codes Group', identifiers: [] }),
    ]);
    roof = await importFiling(t.rt, aFiling({ state: 'TX', companyName: 'Lone Star Casualty', submissionDate: '2023-06-01', sourceReference: '23-000777', naicCompanyCodes: ['54321'], carrierIds: ['carrier_54321'], groupId: null, naicGroupCode: null }), [
      aTextFile(['Roof age schedule: roofs older than 15 years are settled at actual cash value.'], { name: 'Roof Schedule.pdf' }),
    ]);
    serff = await importFiling(t.rt, aFiling({ source: 'serff', sourceReference: 'ACME-133456789', state: 'TX', submissionDate: '2022-01-01' }), [
      aTextFile(['Wildfire surcharge for serff'], { name: 'serff.pdf' }),
    ]);
    old = await importFiling(t.rt, aFiling({ submissionDate: '2015-01-01', state: 'FL' }), [aTextFile(['Historical wildfire surcharge program'], { name: 'old.pdf' })]);
    undated = await importFiling(t.rt, aFiling({ submissionDate: null, state: 'FL' }), [aTextFile(['Undated wildfire surcharge note'], { name: 'undated.pdf' })]);
    await t.rt.engine.catchUp();
  });
  after(async () => t.close());

  const api = (c: TestCaller = viewer) => client(t.baseUrl, c.apiKey);
  const search = (body: object, c: TestCaller = viewer) => api(c).post('/insurance/filings/search', { intent, ...body });
  const ids = (r: any) => r.body.filings.map((f: any) => f.id);

  it('finds filings by document text, with the catalog record fields (no description) and the matching files', async () => {
    const r = await search({ query: 'wildfire surcharge', sort: [{ field: 'relevance', direction: 'desc' }] });
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.equal(r.body.exhaustive, true);
    assert.equal(r.body.nextCursor, null);
    const top = r.body.filings[0];
    assert.equal(top.id, wildfire.filing.id);
    assert.equal('description' in top, false);
    for (const k of ['source', 'sourceReference', 'state', 'companyName', 'naicCompanyCodes', 'carrierIds', 'groupId', 'toiCode', 'subToiCode', 'normalizedOutcome', 'filingTypeNormalized', 'stateStatusChangedDate', 'businessType'])
      assert.ok(k in top, k);
    assert.deepEqual(top.matches, [{ fileId: wildfire.files[0].fileId, versionId: 'v3', name: 'Wildfire Rule.pdf' }]);
  });

  it('rule: includePassages gives passages with 1-based page numbers for the returned page only', async () => {
    const r = await search({ query: 'wildfire surcharge', includePassages: true, filters: [{ field: 'state', operator: 'eq', value: 'ca' }] });
    assert.equal(r.status, 200);
    const m = r.body.filings[0].matches[0];
    assert.ok(m.passages.length >= 1);
    assert.equal(m.passages[0].pageStart, 2);
    assert.equal(m.passages[0].pageEnd, 2);
    assert.match(m.passages[0].text, /wildfire surcharge/i);
  });

  it('rule: serff filings are absent without serff:view; an explicit source=serff filter is 403', async () => {
    const all = await search({ query: 'wildfire surcharge', dataScope: 'all' });
    assert.ok(ids(all).includes(serff.filing.id));
    const r = await search({ query: 'wildfire surcharge', dataScope: 'all' }, plain);
    assert.ok(!ids(r).includes(serff.filing.id));
    const f = await search({ query: 'wildfire', filters: [{ field: 'source', operator: 'eq', value: 'serff' }] }, plain);
    assert.equal(f.status, 403);
    assert.equal(f.body.code, 'forbidden');
  });

  it('rule: dataScope recent (default: 2018 onward plus undated), historical, all', async () => {
    const recent = ids(await search({ query: 'wildfire surcharge' }));
    assert.ok(recent.includes(undated.filing.id) && !recent.includes(old.filing.id));
    assert.deepEqual(ids(await search({ query: 'wildfire surcharge', dataScope: 'historical' })), [old.filing.id]);
    assert.ok(ids(await search({ query: 'wildfire surcharge', dataScope: 'all' })).includes(old.filing.id));
  });

  it('rule: default sort is submissionDate desc within the window; other sorts apply', async () => {
    const r = await search({ query: 'wildfire surcharge', dataScope: 'all' });
    assert.deepEqual(ids(r), [wildfire.filing.id, serff.filing.id, old.filing.id, undated.filing.id]);
    const byState = await search({ query: 'wildfire surcharge', dataScope: 'all', sort: [{ field: 'state', direction: 'asc' }, { field: 'submissionDate', direction: 'asc' }] });
    assert.deepEqual(ids(byState), [wildfire.filing.id, old.filing.id, undated.filing.id, serff.filing.id]);
  });

  it('rule: complete tracking numbers match exactly (SERFF case-insensitive), partial ones by prefix; FL- prefix accepted', async () => {
    assert.deepEqual(ids(await search({ query: 'acme-133456789', dataScope: 'all' })), [serff.filing.id]);
    assert.deepEqual(ids(await search({ query: 'ACME-1334', dataScope: 'all' })), [serff.filing.id]);
    assert.deepEqual(ids(await search({ query: '24-012345' })), [wildfire.filing.id]);
    assert.deepEqual(ids(await search({ query: 'FL-24-012345' })), [wildfire.filing.id]);
    assert.deepEqual(ids(await search({ query: '23-000' })), [roof.filing.id]);
    assert.deepEqual(ids(await search({ query: 'ACME-133456780', dataScope: 'all' })), []);
  });

  it('rule: trackingNumber filter takes FL- prefixed Florida references and SERFF ones as-is', async () => {
    const r = await search({ query: 'wildfire', dataScope: 'all', filters: [{ field: 'trackingNumber', operator: 'eq', value: 'FL-24-012345' }] });
    assert.deepEqual(ids(r), [wildfire.filing.id]);
    const s = await search({ query: 'wildfire', dataScope: 'all', filters: [{ field: 'trackingNumber', operator: 'eq', value: 'acme-133456789' }] });
    assert.deepEqual(ids(s), [serff.filing.id]);
    const none = await search({ query: 'wildfire', dataScope: 'all', filters: [{ field: 'trackingNumber', operator: 'eq', value: '24-012345' }] });
    assert.deepEqual(ids(none), []);
  });

  it('rule: a quoted phrase is honoured only with a narrowing filter; exclusion filters do not count', async () => {
    const q = '"surcharge wildfire"';
    // Without a narrowing filter the quotes are ignored: the words match in any order.
    assert.ok(ids(await search({ query: q })).includes(wildfire.filing.id));
    assert.ok(ids(await search({ query: q, filters: [{ field: 'carrierIds', operator: 'notContainsAny', value: ['carrier_54321'] }] })).includes(wildfire.filing.id));
    // With one, the phrase must occur as written.
    assert.deepEqual(ids(await search({ query: q, filters: [{ field: 'state', operator: 'eq', value: 'CA' }] })), []);
    assert.deepEqual(ids(await search({ query: '"wildfire surcharge"', filters: [{ field: 'state', operator: 'eq', value: 'CA' }] })), [wildfire.filing.id]);
  });

  it('filters: state, company contains, dates, carrierIds, outcome', async () => {
    const f = (filters: object[]) => search({ query: 'wildfire surcharge roof', dataScope: 'all', filters }).then(ids);
    assert.deepEqual(await f([{ field: 'state', operator: 'in', value: ['tx'] }]), [roof.filing.id, serff.filing.id]);
    assert.deepEqual(await f([{ field: 'companyName', operator: 'contains', value: 'bear' }]), [wildfire.filing.id]);
    assert.deepEqual(await f([{ field: 'companyName', operator: 'eq', value: 'Golden Bear Mutual' }]), [wildfire.filing.id]);
    assert.deepEqual(await f([{ field: 'submissionDate', operator: 'between', value: ['2023-01-01', '2023-12-31'] }]), [roof.filing.id]);
    assert.deepEqual(await f([{ field: 'submissionDate', operator: 'gte', value: '2024-01-01' }]), [wildfire.filing.id]);
    assert.deepEqual(await f([{ field: 'carrierIds', operator: 'containsAny', value: ['carrier_54321'] }]), [roof.filing.id]);
    assert.equal((await f([{ field: 'normalizedOutcome', operator: 'in', value: ['APPROVED'] }])).length, 5);
  });

  it('rule: carrierIds and groupId filters read like the list\'s carrier and group: 404 for an id matching no catalog identifier, a carrier through its current NAIC codes', async () => {
    const f = (filters: object[]) => search({ query: 'wildfire surcharge roof', dataScope: 'all', filters });
    for (const filter of [
      { field: 'carrierIds', operator: 'containsAny', value: ['carrier_12345', 'carrier_nope'] },
      { field: 'carrierIds', operator: 'notContainsAny', value: ['carrier_nope'] },
      { field: 'groupId', operator: 'eq', value: 'carrier_group_nope' },
      { field: 'groupId', operator: 'in', value: ['carrier_group_empty'] },
    ]) {
      const r = await f([filter]);
      assert.equal(r.status, 404, JSON.stringify(filter));
      assert.equal(r.body.code, 'not_found');
    }
    // A merged carrier answers for its survivor, as in GET /insurance/filings?carrier=.
    assert.deepEqual(ids(await f([{ field: 'carrierIds', operator: 'containsAny', value: ['carrier_99999'] }])), [roof.filing.id]);
    const list = await api().get('/insurance/filings?carrier=carrier_99999');
    assert.deepEqual(list.body.filings.map((x: any) => x.id), [roof.filing.id]);
    // Excluding a carrier drops its filings and those whose carrier is unknown.
    assert.ok(!ids(await f([{ field: 'carrierIds', operator: 'notContainsAny', value: ['carrier_99999'] }])).includes(roof.filing.id));
    assert.deepEqual(ids(await f([{ field: 'groupId', operator: 'eq', value: 'carrier_group_123' }])).includes(roof.filing.id), false);
  });

  it('rule: intent is required on /insurance, optional on /filings, 10..500, and may not merely repeat the query', async () => {
    const noIntent = await api().post('/insurance/filings/search', { query: 'wildfire' });
    assert.equal(noIntent.status, 400);
    assert.deepEqual(noIntent.body.details[0].path, ['intent']);
    assert.equal((await api().post('/filings/search', { query: 'wildfire' })).status, 200);
    assert.equal((await api().post('/filings/search', { query: 'wildfire', intent: 'too short' })).status, 400);
    const repeat = await api().post('/insurance/filings/search', { query: 'Wildfire surcharge!', intent: '  wildfire,  SURCHARGE wildfire ' });
    assert.equal(repeat.status, 400);
    assert.equal(repeat.body.code, 'invalid_request');
    assert.deepEqual(repeat.body.details[0].path, ['intent']);
  });

  it('rule: validation: query 1..4000, limit 1..200, sort 1..3, unknown fields/operators/values are 400 with details', async () => {
    const bad: [object, string[]][] = [
      [{ query: '' }, ['query']],
      [{ query: 'x'.repeat(4001) }, ['query']],
      [{ query: 'x', limit: 0 }, ['limit']],
      [{ query: 'x', limit: 201 }, ['limit']],
      [{ query: 'x', sort: [] }, ['sort']],
      [{ query: 'x', sort: [{ field: 'state', direction: 'asc' }, { field: 'companyName', direction: 'asc' }, { field: 'dispositionDate', direction: 'asc' }, { field: 'submissionDate', direction: 'asc' }] }, ['sort']],
      [{ query: 'x', sort: [{ field: 'relevance', direction: 'asc' }] }, ['sort', '0', 'direction']],
      [{ query: 'x', sort: [{ field: 'sourceReference', direction: 'asc' }] }, ['sort', '0', 'field']],
      [{ query: 'x', filters: [{ field: 'color', operator: 'eq', value: 'red' }] }, ['filters', '0', 'field']],
      [{ query: 'x', filters: [{ field: 'state', operator: 'contains', value: 'TX' }] }, ['filters', '0', 'operator']],
      [{ query: 'x', filters: [{ field: 'state', operator: 'eq', value: ['TX'] }] }, ['filters', '0', 'value']],
      [{ query: 'x', filters: [{ field: 'state', operator: 'eq', value: 'Texas' }] }, ['filters', '0', 'value']],
      [{ query: 'x', filters: [{ field: 'submissionDate', operator: 'between', value: ['2024-02-30', '2024-03-01'] }] }, ['filters', '0', 'value']],
      [{ query: 'x', filters: [{ field: 'normalizedOutcome', operator: 'eq', value: 'approved' }] }, ['filters', '0', 'value']],
      [{ query: 'x', dataScope: 'future' }, ['dataScope']],
      [{ query: 'x', includePassages: 'yes' }, ['includePassages']],
      [{ query: 'x', extra: 1 }, ['extra']],
    ];
    for (const [body, path] of bad) {
      const r = await search(body);
      assert.equal(r.status, 400, JSON.stringify(body).slice(0, 200));
      assert.equal(r.body.code, 'invalid_request');
      assert.deepEqual(r.body.details[0].path, path, JSON.stringify(r.body.details));
    }
  });

  it('rule: toiCode and subToiCode filters take normalized codes of 1 to 20 characters (a longer one is 400, as for GET toi/subToi)', async () => {
    const long = `04.${'0'.repeat(18)}`;
    for (const filters of [
      [{ field: 'toiCode', operator: 'eq', value: long }],
      [{ field: 'subToiCode', operator: 'in', value: ['04.0000', long] }],
    ]) {
      const r = await search({ query: 'wildfire', filters });
      assert.equal(r.status, 400, JSON.stringify(r.body));
      assert.equal(r.body.code, 'invalid_request');
      assert.equal(r.body.details[0].path.slice(0, 3).join('.'), 'filters.0.value');
    }
    assert.equal((await search({ query: 'wildfire', filters: [{ field: 'toiCode', operator: 'eq', value: `04.${'0'.repeat(17)}` }] })).status, 200);
  });

  it('rule: error details code a filter value of the wrong type invalid_type and a wrong value of the right type invalid_value', async () => {
    const cases: [object, string[], string][] = [
      [{ field: 'state', operator: 'eq', value: ['TX'] }, ['filters', '0', 'value'], 'invalid_type'],
      [{ field: 'state', operator: 'in', value: [7] }, ['filters', '0', 'value', '0'], 'invalid_type'],
      [{ field: 'submissionDate', operator: 'gte', value: 20240101 }, ['filters', '0', 'value'], 'invalid_type'],
      [{ field: 'state', operator: 'eq', value: 'Texas' }, ['filters', '0', 'value'], 'invalid_value'],
      [{ field: 'submissionDate', operator: 'gte', value: '2024-02-30' }, ['filters', '0', 'value'], 'invalid_value'],
      // Year 0000 is no date Postgres can hold: a 400, never a 500.
      [{ field: 'submissionDate', operator: 'gte', value: '0000-01-01' }, ['filters', '0', 'value'], 'invalid_value'],
      [{ field: 'dispositionDate', operator: 'between', value: ['0000-01-01', '2020-01-01'] }, ['filters', '0', 'value'], 'invalid_value'],
      [{ field: 'color', operator: 'eq', value: 'red' }, ['filters', '0', 'field'], 'invalid_value'],
    ];
    for (const [filter, path, code] of cases) {
      const r = await search({ query: 'wildfire', filters: [filter] });
      assert.equal(r.status, 400);
      assert.deepEqual([r.body.details[0].path, r.body.details[0].code], [path, code], JSON.stringify(filter));
    }
  });

  it('rule: body over 64 KiB is 413 request_too_large', async () => {
    const r = await search({ query: 'wildfire', filters: [{ field: 'carrierIds', operator: 'containsAny', value: Array.from({ length: 100 }, () => 'c'.repeat(500)) }], pad: 'x'.repeat(20000) });
    assert.equal(r.status, 413);
    assert.equal(r.body.code, 'request_too_large');
  });

  it('rule: pages continue with a cursor bound to the semantic body and caller; GET cursors are not interchangeable', async () => {
    const body = { query: 'wildfire surcharge roof', dataScope: 'all', limit: 2 };
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const r: any = await search(cursor ? { ...body, cursor } : body);
      assert.equal(r.status, 200);
      seen.push(...ids(r));
      cursor = r.body.nextCursor;
      pages++;
      if (cursor) {
        assert.equal((await search({ ...body, limit: 3, cursor })).body.code, 'invalid_cursor');
        assert.equal((await search({ ...body, query: 'roof', cursor })).body.code, 'invalid_cursor');
        assert.equal((await search({ ...body, cursor }, plain)).body.code, 'invalid_cursor');
        assert.equal((await api().get(`/filings/${wildfire.filing.id}/files?cursor=${cursor}`)).body.code, 'invalid_cursor');
      }
    } while (cursor);
    assert.equal(pages, 3);
    assert.equal(new Set(seen).size, 5);
  });

  it('rule: a cursor continues the same semantic body: an omitted field and its default (dataScope, includePassages, sort, filters) are the same request', async () => {
    const body = { query: 'wildfire surcharge roof', limit: 1 };
    const first = await search(body);
    assert.equal(first.status, 200);
    const cursor = first.body.nextCursor;
    assert.ok(cursor);
    const explicit = { ...body, dataScope: 'recent', includePassages: false, sort: [{ field: 'submissionDate', direction: 'desc' }], filters: [], cursor };
    const r = await search(explicit);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    assert.deepEqual(r.body, (await search({ ...body, cursor })).body);
    // A different value is still another request.
    assert.equal((await search({ ...body, dataScope: 'all', cursor })).body.code, 'invalid_cursor');
    assert.equal((await search({ ...body, includePassages: true, cursor })).body.code, 'invalid_cursor');
  });

  it('rule: exhaustive is false when more filings match than the candidate window', async () => {
    // 101 matching filings > the 100-document window with passages.
    for (let i = 0; i < 101; i++) await importFiling(t.rt, aFiling({ state: 'NV' }), [aTextFile([`telematics usage based program number ${i}`])]);
    await t.rt.engine.catchUp();
    const withPassages = await search({ query: 'telematics', includePassages: true, limit: 200 });
    assert.equal(withPassages.body.exhaustive, false);
    assert.equal(withPassages.body.filings.length, 100);
    const without = await search({ query: 'telematics', limit: 200 });
    assert.equal(without.body.exhaustive, true);
    assert.equal(without.body.filings.length, 101);
  });
  it('indexes PDF originals extracted at import, page by page; a rebuild re-reads the recorded text, never the PDF', async () => {
    const pdf = await pdfOf(['Cover letter for the cyber program', 'Ransomware extortion coinsurance of fifty percent applies', 'Signature page']);
    const f = await importFiling(t.rt, aFiling({ state: 'NJ' }), [aContentFile(pdf, { name: 'Cyber Form.pdf', mimeType: 'application/pdf' })]);
    await t.rt.engine.catchUp();
    const body = { query: 'ransomware coinsurance', includePassages: true, filters: [{ field: 'state', operator: 'eq', value: 'NJ' }] };
    const r = await search(body);
    assert.deepEqual(ids(r), [f.filing.id]);
    assert.deepEqual([r.body.filings[0].matches[0].passages[0].pageStart, r.body.filings[0].matches[0].passages[0].pageEnd], [2, 2]);
    await t.rt.engine.rebuild([SEARCH_PROJECTION, FILES_PROJECTION]);
    const again = await search(body);
    assert.deepEqual(again.body, r.body);
    assert.equal((await api().get(`/filings/${f.filing.id}/files`)).body.files[0].pageCount, 3);
  });
});
