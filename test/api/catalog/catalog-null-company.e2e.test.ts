import assert from 'node:assert/strict';
import { catalogFiling, file, importRecords, product, serffFiling } from '../../support/catalog-records';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';

type Rec = Record<string, any>;

/**
 * Spec, Resources: "Unless a field is marked required, it may be null when the value is missing", and the
 * catalog filing's `companyName` is not marked required. A filing whose source names no company is imported
 * and served with `companyName: null` wherever the record is served; the company filters never match it;
 * the companyName sort puts it last in both directions ("Nulls sort last; filing ID ascending breaks ties"),
 * and keyset pages cross the null boundary without skipping or repeating a filing.
 */
describe('catalog filings without a company name', function () {
  this.timeout(120_000);
  let t: TestRuntime;
  let caller: TestCaller;
  const get = (p: string) => client(t.baseUrl, caller.apiKey).get(p);
  const ids = (r: { body: { filings: Rec[] } }) => r.body.filings.map((f) => f.id as string);
  const hail = () => [file({ text: { pages: ['Hailstorm roof schedule'] } })];

  // Nulls and ties in every key the walks sort by: three filings without a company (one left out, two null),
  // two filings sharing a name, two states.
  const named = [
    catalogFiling({ companyName: 'Beta Mutual', state: 'FL', submissionDate: '2025-01-05', files: hail() }),
    catalogFiling({ companyName: 'Alpha Insurance', state: 'TX', submissionDate: '2025-01-04', files: hail() }),
    catalogFiling({ companyName: 'Beta Mutual', state: 'TX', submissionDate: '2025-01-03', files: hail() }),
    serffFiling({ companyName: 'Gamma Casualty', state: 'FL', submissionDate: null, files: hail() }),
  ];
  const nameless = [
    catalogFiling({ companyName: null, state: 'TX', submissionDate: '2025-01-06', files: hail() }),
    serffFiling({ companyName: null, state: 'FL', submissionDate: '2025-01-02', files: hail() }),
  ];
  const { companyName: _left, ...absent } = catalogFiling({ state: 'FL', submissionDate: null, files: hail() });
  const all: Rec[] = [...named, ...nameless, absent];
  const noName = new Set([...nameless, absent].map((f) => f.id as string));
  const shelf = product({ filings: [{ state: 'TX', filingId: nameless[0].id }, { state: 'TX', filingId: named[1].id }] });

  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt, { permissions: ['serff:view'] });
    const r = await importRecords(t.rt, [...all, shelf]);
    assert.equal(r.failed, 0, JSON.stringify(r.errors));
    assert.equal(r.imported, all.length + 1);
  });
  after(async () => t.close());

  it('rule: a catalog_filing line with companyName null or left out is imported, and served with companyName null in the list (both path forms) and the detail', async () => {
    for (const path of ['/insurance/filings', '/filings']) {
      const list = await get(`${path}?limit=200`);
      assert.equal(list.status, 200);
      for (const f of list.body.filings as Rec[]) {
        assert.ok('companyName' in f, 'the field is present, not omitted');
        if (noName.has(f.id)) assert.equal(f.companyName, null, f.id);
        else assert.equal(typeof f.companyName, 'string');
      }
    }
    for (const f of [...nameless, absent]) {
      for (const path of ['/insurance/filings', '/filings']) {
        const detail = await get(`${path}/${f.id}`);
        assert.equal(detail.status, 200);
        assert.equal(detail.body.companyName, null);
        assert.equal(detail.body.productName, 'Homeowners Program');
      }
    }
    // The one-source, one-reference lookup (the record with its description) too.
    const lookup = await get(`/insurance/filings?source=florida_irfs&sourceReference=${absent.sourceReference}`);
    assert.deepEqual(lookup.body.filings.map((f: Rec) => [f.id, f.companyName, typeof f.description]), [[absent.id, null, 'string']]);
  });

  it('rule: the OpenAPI document gives the catalog filing companyName as a nullable string', async () => {
    const doc = (await client(t.baseUrl).get('/openapi.json')).body;
    assert.deepEqual(doc.components.schemas.CatalogFiling.properties.companyName.type, ['string', 'null']);
  });

  it('rule: companyName and companyNameContains never match a filing without a company name', async () => {
    const listed = async (q: string) => {
      const r = await get(`/insurance/filings?limit=200&${q}`);
      assert.equal(r.status, 200, r.text);
      return ids(r).sort();
    };
    const withName = (pred: (n: string) => boolean) => named.filter((f) => pred(f.companyName as string)).map((f) => f.id as string).sort();
    // A term in every name: every named filing, none of the nameless ones.
    assert.deepEqual(await listed('companyNameContains=a'), withName(() => true));
    assert.deepEqual(await listed('companyNameContains=beta'), withName((n) => n === 'Beta Mutual'));
    // Nothing spells a missing name: not 'null', not an empty-looking value.
    for (const q of ['companyNameContains=null', 'companyNameContains=nul', 'companyName=null', 'companyName=%20', 'companyNameContains=%20%20%20']) assert.deepEqual(await listed(q), [], q);
    assert.deepEqual(await listed('companyName=Beta%20Mutual&companyName=Gamma%20Casualty'), withName((n) => n !== 'Alpha Insurance'));
    // With other filters alone, the nameless filings are found like any other.
    assert.deepEqual(await listed('state=TX'), all.filter((f) => f.state === 'TX').map((f) => f.id as string).sort());
  });

  it('rule: the product availability filings serve companyName null too', async () => {
    const r = await get(`/insurance/products/${shelf.id}/availability/TX/filings`);
    assert.equal(r.status, 200);
    assert.deepEqual(r.body.filings.map((f: Rec) => [f.id, f.companyName]), [
      [nameless[0].id, null],
      [named[1].id, 'Alpha Insurance'],
    ]);
  });

  it('rule: search results serve companyName null; a companyName sort puts such filings last in both directions; companyName filters never match them', async () => {
    const search = async (body: Rec) => {
      const r = await client(t.baseUrl, caller.apiKey).post('/filings/search', { query: 'hailstorm', dataScope: 'all', limit: 200, ...body });
      assert.equal(r.status, 200, r.text);
      return r.body.filings as Rec[];
    };
    const found = await search({});
    assert.equal(found.length, all.length);
    for (const f of found) assert.equal(f.companyName, noName.has(f.id) ? null : all.find((x) => x.id === f.id)!.companyName, f.id);
    for (const direction of ['asc', 'desc']) {
      const sorted = await search({ sort: [{ field: 'companyName', direction }] });
      const names = sorted.map((f) => f.companyName);
      const given = names.filter((n) => n !== null);
      assert.deepEqual(names.slice(given.length), [null, null, null], `${direction}: nulls last`);
      assert.deepEqual(given, [...given].sort((a, b) => (direction === 'asc' ? (a < b ? -1 : a > b ? 1 : 0) : a < b ? 1 : a > b ? -1 : 0)), direction);
    }
    for (const filter of [
      { field: 'companyName', operator: 'contains', value: 'a' },
      { field: 'companyName', operator: 'contains', value: 'null' },
      { field: 'companyName', operator: 'eq', value: 'null' },
    ]) {
      const hits = await search({ filters: [filter] });
      assert.ok(hits.every((f) => !noName.has(f.id)), JSON.stringify(filter));
    }
    assert.equal((await search({ filters: [{ field: 'companyName', operator: 'contains', value: 'a' }] })).length, named.length);
  });

  /** The list's order for `sort`, computed here: each key nulls last in both directions, then id ascending. */
  const expectedOrder = (sort: string[]): string[] => {
    const keys = sort.map((s) => ({ field: s.replace(/^-/, ''), desc: s.startsWith('-') }));
    return [...all]
      .sort((a, b) => {
        for (const k of keys) {
          const x = (a[k.field] ?? null) as string | null;
          const y = (b[k.field] ?? null) as string | null;
          if (x === y) continue;
          if (x === null) return 1;
          if (y === null) return -1;
          return (x < y ? -1 : 1) * (k.desc ? -1 : 1);
        }
        return a.id < b.id ? -1 : 1;
      })
      .map((f) => f.id as string);
  };

  const walk = async (sort: string[], limit: number): Promise<string[]> => {
    const q = `limit=${limit}${sort.map((s) => `&sort=${s}`).join('')}`;
    const seen: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; pages <= all.length; pages++) {
      const r = await get(`/insurance/filings?${q}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(r.status, 200, r.text);
      assert.ok(r.body.filings.length <= limit);
      seen.push(...ids(r));
      cursor = r.body.nextCursor;
      if (!cursor) return seen;
    }
    assert.fail(`more than ${all.length + 1} pages of ${limit}`);
  };

  for (const sort of [['companyName'], ['-companyName'], ['state', 'companyName'], ['-state', '-companyName'], ['companyName', '-submissionDate'], ['-companyName', 'state', 'submissionDate']]) {
    it(`rule: sort=${sort.join(',')} puts filings without a company name last within their key, and keyset pages of 1 and 2 cross the nulls without skipping or repeating`, async () => {
      const expected = expectedOrder(sort);
      const firstPage = await get(`/insurance/filings?limit=200${sort.map((s) => `&sort=${s}`).join('')}`);
      assert.deepEqual(ids(firstPage), expected);
      if (sort[0].endsWith('companyName')) assert.deepEqual(new Set(expected.slice(-noName.size)), noName, 'nulls last');
      for (const limit of [1, 2]) assert.deepEqual(await walk(sort, limit), expected, `limit ${limit}`);
    });
  }
});
