import assert from 'node:assert/strict';
import type { IndexedFiling, SearchIndex, SearchQuery } from '../../src/ports/search-index';
import { buildSearchQuery, type SearchBody } from '../../queries/search/search-query';
import { buildRelevanceCorpus, corpusId, toIndexedFilings } from '../support/relevance/corpus';
import { evaluateRelevance } from '../support/relevance/evaluate';

export interface SearchIndexFixture {
  index: SearchIndex;
  /** Writes through the adapter's normal path (for Postgres: inside a transaction, as the projector does). */
  write(filings: IndexedFiling[]): Promise<void>;
  remove(filingIds: string[]): Promise<void>;
  close(): Promise<void>;
}

/** The floor every adapter must hold on the labelled relevance set (test/support/relevance). */
export const RELEVANCE_FLOOR = { mrr: 0.8, recallAt10: 0.9 };

/** One suite, run for every SearchIndex adapter (Postgres FTS always; Elasticsearch where ELASTICSEARCH_URL is set). */
export function searchIndexContract(name: string, makeFixture: () => Promise<SearchIndexFixture>): void {
  describe(`SearchIndex contract: ${name}`, function () {
    this.timeout(120_000);
    let fx: SearchIndexFixture;
    const corpus = buildRelevanceCorpus();
    const indexed = toIndexedFilings(corpus);
    const query = (body: Partial<SearchBody> & { query: string }, o: Partial<SearchQuery> = {}): SearchQuery => ({
      ...buildSearchQuery({ sort: [{ field: 'relevance', direction: 'desc' }], dataScope: 'all', ...body }, { canViewSerff: true }, { offset: 0 }),
      ...o,
    });
    const ids = async (q: SearchQuery) => (await fx.index.search(q)).hits.map((h) => h.filing.id);

    before(async () => {
      fx = await makeFixture();
      const started = process.hrtime.bigint();
      await fx.write(indexed);
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const pages = indexed.reduce((n, f) => n + f.documents.reduce((m, d) => m + d.pages.length, 0), 0);
      console.log(`      indexed ${indexed.length} filings / ${pages} pages in ${(seconds * 1000).toFixed(0)} ms`);
    });
    after(async () => fx?.close());

    it(`rule: relevance on the labelled set holds MRR >= ${RELEVANCE_FLOOR.mrr} and recall@10 >= ${RELEVANCE_FLOOR.recallAt10}`, async () => {
      const r = await evaluateRelevance(fx.index, corpus);
      console.log(`      relevance: ${r.queries} queries, MRR ${r.mrr.toFixed(3)}, recall@10 ${r.recallAt10.toFixed(3)}`);
      for (const m of r.misses) console.log(`        not first: "${m.query}" rank ${m.rank ?? '-'} top ${m.top.join(', ')}`);
      assert.ok(r.queries >= 30);
      assert.ok(r.mrr >= RELEVANCE_FLOOR.mrr, `MRR ${r.mrr}`);
      assert.ok(r.recallAt10 >= RELEVANCE_FLOOR.recallAt10, `recall@10 ${r.recallAt10}`);
    });

    it('reports the files that matched, best first, with the indexed versionId', async () => {
      const page = await fx.index.search(query({ query: 'ransomware sublimit' }));
      const top = page.hits[0];
      assert.equal(top.filing.id, corpusId('cyber-ransomware-sublimit'));
      assert.equal(top.matches[0].fileId, corpusId('cyber-ransomware-sublimit/CyberShield Commercial Rule and Rate Pages.pdf'));
      assert.equal(top.matches[0].versionId, null);
      assert.equal('description' in top.filing, false);
    });

    it('rule: passages are computed for the given matches only, with 1-based page numbers', async () => {
      const q = query({ query: 'hurricane deductible credit' });
      const page = await fx.index.search(q);
      const top = page.hits[0];
      assert.equal(top.filing.id, corpusId('fl-hurricane-deductible'));
      const passages = await fx.index.passages(q, [{ filingId: top.filing.id, fileId: top.matches[0].fileId }], 2);
      assert.deepEqual([...passages.keys()], [top.matches[0].fileId]);
      const p = passages.get(top.matches[0].fileId)!;
      assert.equal(p.length, 2);
      // The rule page has two pages: both match, page numbers count from 1.
      assert.deepEqual(p.map((x) => [x.pageStart, x.pageEnd]).sort(), [[1, 1], [2, 2]]);
      assert.match(p.find((x) => x.pageStart === 2)!.text, /credit/i);
    });

    it('rule: a tracking number matches exactly (SERFF case-insensitively) or by prefix', async () => {
      const serff = corpus.find((c) => c.filing.source === 'serff')!;
      assert.deepEqual(await ids(query({ query: serff.filing.sourceReference.toLowerCase() })), [serff.filing.id]);
      assert.deepEqual(await ids(query({ query: serff.filing.sourceReference.slice(0, 8) })), [serff.filing.id]);
      const fl = corpus.find((c) => c.key === 'fl-hurricane-deductible')!;
      assert.deepEqual(await ids(query({ query: `FL-${fl.filing.sourceReference}` })), [fl.filing.id]);
    });

    it('filters combine with AND; values of in/containsAny with OR; exclusion drops unknown carriers', async () => {
      const q = (filters: SearchBody['filters']) => ids(query({ query: 'roof', filters }));
      assert.deepEqual((await q([{ field: 'state', operator: 'in', value: ['OK', 'AL'] }])).sort(), [corpusId('al-fortified-roof'), corpusId('ok-roof-acv')].sort());
      const okOnly = await q([{ field: 'state', operator: 'eq', value: 'ok' }, { field: 'submissionDate', operator: 'between', value: ['2023-01-01', '2023-12-31'] }]);
      assert.deepEqual(okOnly, [corpusId('ok-roof-acv')]);
      const excluded = await q([{ field: 'carrierIds', operator: 'notContainsAny', value: [corpus.find((c) => c.key === 'ok-roof-acv')!.filing.carrierIds![0]] }]);
      assert.ok(!excluded.includes(corpusId('ok-roof-acv')) && excluded.length > 0);
      const byCompany = await q([{ field: 'companyName', operator: 'contains', value: 'prairie FARMERS' }]);
      assert.deepEqual(byCompany, [corpusId('ok-roof-acv')]);
    });

    it('rule: a group filter matches the filing\'s NAIC group code or any of the given company codes, never the filing\'s own groupId', async () => {
      // The codes the endpoint resolves a directory group to (queries/search/search-directory-filters.ts): its NAIC
      // group code and its unmerged carriers' current NAIC company codes, as the catalog list's `group` matches.
      const base = indexed.find((f) => f.filing.id === corpusId('solar-panels'))!;
      const one = (n: number, o: Partial<IndexedFiling['filing']>): IndexedFiling => ({
        ...base,
        filing: { ...base.filing, id: `00000000-0000-4000-8000-0000000a70${n}0`, sourceReference: `GROUP-${n}`, companyName: 'Group Rule Mutual', description: null, ...o },
        documents: [{ ...base.documents[0], fileId: `00000000-0000-4000-8000-0000000a70${n}1`, pages: [{ page: 1, text: 'A narwhal windstorm schedule.' }] }],
      });
      const byAll = one(1, { naicGroupCode: '700', groupId: 'carrier_group_700', naicCompanyCodes: ['70001'] });
      const byGroupCodeOnly = one(2, { naicGroupCode: '700', groupId: null, naicCompanyCodes: ['55555'], carrierIds: [] });
      const byMemberCodeOnly = one(3, { naicGroupCode: null, groupId: null, naicCompanyCodes: ['70002'] });
      const byCoFiler = one(4, { naicGroupCode: '121', groupId: 'carrier_group_121', naicCompanyCodes: ['12121', '70002'] });
      const byOwnGroupIdOnly = one(5, { naicGroupCode: '999', groupId: 'carrier_group_700', naicCompanyCodes: ['99901'] });
      const withoutCodes = one(6, { naicGroupCode: null, groupId: 'carrier_group_700', naicCompanyCodes: null, carrierIds: null });
      const written = [byAll, byGroupCodeOnly, byMemberCodeOnly, byCoFiler, byOwnGroupIdOnly, withoutCodes];
      await fx.write(written);
      try {
        const group: SearchQuery['filters'][number] = { kind: 'group', naicGroupCodes: ['700'], naicCompanyCodes: ['70001', '70002'] };
        const expected = [byAll, byGroupCodeOnly, byMemberCodeOnly, byCoFiler].map((f) => f.filing.id).sort();
        const ours: SearchBody['filters'] = [{ field: 'companyName', operator: 'eq', value: 'Group Rule Mutual' }];
        const selected = async (text: string) => {
          const q = query({ query: text, filters: ours });
          return (await ids({ ...q, filters: [...q.filters, group], limit: 200 })).sort();
        };
        assert.deepEqual(await selected('narwhal'), expected);
        // Filters alone select (only stop words): the same filings.
        assert.deepEqual(await selected('the'), expected);
        // No group code, or no company code, given: the other alone decides.
        const q = query({ query: 'narwhal', filters: ours });
        assert.deepEqual((await ids({ ...q, filters: [...q.filters, { kind: 'group', naicGroupCodes: [], naicCompanyCodes: ['70002'] }] })).sort(), [byMemberCodeOnly, byCoFiler].map((f) => f.filing.id).sort());
        assert.deepEqual((await ids({ ...q, filters: [...q.filters, { kind: 'group', naicGroupCodes: ['999'], naicCompanyCodes: [] }] })).sort(), [byOwnGroupIdOnly.filing.id]);
      } finally {
        await fx.remove(written.map((f) => f.filing.id));
      }
    });

    it('rule: the candidate window bounds the results; exhaustive is false beyond it', async () => {
      const wide = await fx.index.search(query({ query: 'rate territory' }, { window: 5, limit: 50 }));
      assert.equal(wide.hits.length, 5);
      assert.equal(wide.exhaustive, false);
      const all = await fx.index.search(query({ query: 'rate territory' }, { window: 1200, limit: 200 }));
      assert.equal(all.exhaustive, true);
      assert.ok(all.hits.length > 5);
    });

    it('rule: a filing without a company name (null) is found with companyName null; companyName filters never match it; a companyName sort puts it last in both directions', async () => {
      const base = indexed.find((f) => f.filing.id === corpusId('ok-roof-acv'))!;
      const nameless = (key: string, name: string | null): IndexedFiling => ({
        filing: { ...base.filing, id: corpusId(key), sourceReference: `${base.filing.sourceReference}-${key}`, companyName: name },
        version: 1,
        documents: [{ ...base.documents[0], fileId: corpusId(`${key}/doc`), pages: [{ page: 1, text: 'quokka zeppelin hangar endorsement' }] }],
      });
      const added = [nameless('no-company-1', null), nameless('no-company-2', 'Zebra Mutual'), nameless('no-company-3', null), nameless('no-company-4', 'Aardvark Casualty')];
      await fx.write(added);
      try {
        const search = (body: Partial<SearchBody>) => fx.index.search(query({ query: 'quokka zeppelin', ...body }));
        const found = (await search({})).hits;
        assert.deepEqual(found.map((h) => [h.filing.id, h.filing.companyName]).sort(), added.map((f) => [f.filing.id, f.filing.companyName]).sort());
        for (const direction of ['asc', 'desc'] as const) {
          const names = (await search({ sort: [{ field: 'companyName', direction }] })).hits.map((h) => h.filing.companyName);
          assert.deepEqual(names, direction === 'asc' ? ['Aardvark Casualty', 'Zebra Mutual', null, null] : ['Zebra Mutual', 'Aardvark Casualty', null, null], direction);
        }
        const filtered = async (filters: SearchBody['filters']) => (await search({ filters })).hits.map((h) => h.filing.companyName).sort();
        assert.deepEqual(await filtered([{ field: 'companyName', operator: 'contains', value: 'u' }]), ['Aardvark Casualty', 'Zebra Mutual']);
        assert.deepEqual(await filtered([{ field: 'companyName', operator: 'contains', value: 'null' }]), []);
        assert.deepEqual(await filtered([{ field: 'companyName', operator: 'eq', value: 'null' }]), []);
      } finally {
        await fx.remove(added.map((f) => f.filing.id));
      }
    });

    it('rule: an older version never overwrites a newer one; a newer one replaces documents; remove deletes', async () => {
      const base = indexed.find((f) => f.filing.id === corpusId('solar-panels'))!;
      const newer: IndexedFiling = { ...base, version: 3, documents: [{ ...base.documents[1], pages: [{ page: 1, text: 'geothermal coverage' }] }] };
      await fx.write([newer]);
      await fx.write([{ ...base, version: 2 }]);
      assert.deepEqual(await ids(query({ query: 'geothermal' })), [base.filing.id]);
      assert.deepEqual(await ids(query({ query: 'photovoltaic' })), []);
      await fx.remove([base.filing.id]);
      assert.deepEqual(await ids(query({ query: 'geothermal' })), []);
    });
  });
}
