import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import type { Knex } from 'knex';
import { ElasticsearchSearchIndex } from '../../../infra/search/elasticsearch-search-index';
import { buildSearchQuery, type SearchBody } from '../../../queries/search/search-query';
import type { IndexedFiling, SortKey } from '../../../src/ports/search-index';
import { searchIndexContract } from '../../contracts/search-index.contract';
import { buildRelevanceCorpus, corpusId, toIndexedFilings } from '../../support/relevance/corpus';
import { dropTestIndexes, testElasticsearchUrl, uniqueAlias } from '../../support/elasticsearch';
import knexFactory from 'knex';
import { CatalogFilingRecords } from '../../../infra/search/catalog-filing-records';
import { recordOf } from '../../../infra/search/postgres-search-index';
import { freshDatabaseUrl } from '../../support/postgres';

/**
 * A database holding the catalog read model's records (`catalog_filings`' id and list record: what
 * CatalogFilingRecords reads) of the filings written, as the catalog projection keeps them next to the index.
 */
async function catalogTable(): Promise<{ knex: Knex; put(filings: IndexedFiling[]): Promise<void> }> {
  const knex = knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 0, max: 4 } });
  await knex.raw('create table catalog_filings (id uuid primary key, list_record text not null)');
  return {
    knex,
    put: async (filings) => {
      if (!filings.length) return;
      await knex('catalog_filings')
        .insert(filings.map((f) => ({ id: f.filing.id, list_record: JSON.stringify(recordOf(f.filing)) })))
        .onConflict('id')
        .merge();
    },
  };
}

const url = testElasticsearchUrl();
if (!url) {
  // Not a pass: no Elasticsearch tests are registered at all. CI starts Elasticsearch and sets ELASTICSEARCH_URL.
  console.log('SearchIndex contract: ElasticsearchSearchIndex — ELASTICSEARCH_URL not set, Elasticsearch not reachable from this run; its contract suite did NOT run (start it: eval "$(infra/servers/elasticsearch.sh start)")');
} else {
  searchIndexContract('ElasticsearchSearchIndex', async () => {
    const client = new Client({ node: url });
    const alias = uniqueAlias();
    const index = new ElasticsearchSearchIndex(client, { alias });
    // Elasticsearch writes need no transaction; the live namer is the identity, as in the projection engine.
    const ctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
    await index.createSchema(ctx.trx, ctx.table);
    return {
      index,
      write: (filings) => index.upsert(ctx, filings),
      remove: (ids) => index.remove(ctx, ids),
      close: async () => {
        await dropTestIndexes(client, alias);
        await client.close();
      },
    };
  });

  // The service's form: records from the catalog read model (Postgres), the rest from Elasticsearch.
  searchIndexContract('ElasticsearchSearchIndex, records from the catalog read model', async () => {
    const client = new Client({ node: url });
    const alias = uniqueAlias();
    const catalog = await catalogTable();
    const index = new ElasticsearchSearchIndex(client, { alias, records: new CatalogFilingRecords(catalog.knex) });
    const ctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
    await index.createSchema(ctx.trx, ctx.table);
    return {
      index,
      write: async (filings) => {
        await index.upsert(ctx, filings);
        await catalog.put(filings);
      },
      remove: (ids) => index.remove(ctx, ids),
      close: async () => {
        await dropTestIndexes(client, alias);
        await client.close();
        await catalog.knex.destroy();
      },
    };
  });
}

if (url) {
  describe('ElasticsearchSearchIndex: at-least-once writes', function () {
    this.timeout(60_000);
    const client = new Client({ node: url });
    const alias = uniqueAlias();
    const index = new ElasticsearchSearchIndex(client, { alias });
    const ctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
    const filing = toIndexedFilings(buildRelevanceCorpus()).find((f) => f.filing.id === corpusId('solar-panels'))!;
    const pageCount = async () => (await client.count({ index: alias, query: { bool: { filter: [{ term: { filingId: filing.filing.id } }, { term: { kind: 'page' } }] } } })).count;

    before(() => index.createSchema(ctx.trx, ctx.table));
    after(async () => {
      await dropTestIndexes(client, alias);
      await client.close();
    });

    it('rule: a replayed write (same position) is harmless; pages a newer version no longer has are deleted', async () => {
      const v1 = { ...filing, position: 10n };
      await index.upsert(ctx, [v1]);
      await index.upsert(ctx, [v1]);
      const pages = v1.documents.reduce((n, d) => n + d.pages.length, 0);
      assert.equal(await pageCount(), pages);
      const v2 = { ...filing, version: 2, position: 20n, documents: [{ ...filing.documents[0], pages: [{ page: 1, text: 'only a cover letter now' }] }] };
      await index.upsert(ctx, [v2]);
      assert.equal(await pageCount(), 1);
      // An out-of-order replay of the older event changes nothing.
      await index.upsert(ctx, [v1]);
      assert.equal(await pageCount(), 1);
      const doc = await client.get<{ pageDocIds: string[]; retiredDocIds: string[] }>({ index: alias, id: filing.filing.id });
      assert.equal(doc._version, 20, 'the external version is the event position');
      assert.deepEqual(doc._source!.retiredDocIds, []);
    });
  });
}

if (url) {
  describe('ElasticsearchSearchIndex: passages without a preceding search of the same query object', function () {
    this.timeout(60_000);
    const client = new Client({ node: url });
    const alias = uniqueAlias();
    const index = new ElasticsearchSearchIndex(client, { alias });
    const ctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
    before(async () => {
      await index.createSchema(ctx.trx, ctx.table);
      await index.upsert(ctx, toIndexedFilings(buildRelevanceCorpus()));
    });
    after(async () => {
      await dropTestIndexes(client, alias);
      await client.close();
    });

    it('finds the same best pages itself as search handed on', async () => {
      const body = { query: 'hurricane deductible credit', dataScope: 'all' as const, includePassages: true };
      const q = buildSearchQuery(body, { canViewSerff: true }, { offset: 0 });
      const page = await index.search(q);
      const matches = page.hits.slice(0, 5).flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId })));
      const handedOn = await index.passages(q, matches, 2);
      const fresh = await index.passages(buildSearchQuery(body, { canViewSerff: true }, { offset: 0 }), matches, 2);
      assert.ok(handedOn.size > 0);
      assert.deepEqual([...fresh.entries()].sort(), [...handedOn.entries()].sort());
    });

    it('rule: past the text budget, matches and passages are the same as within it (the listing is read again, missing text by id)', async () => {
      const body = { query: 'rate premium deductible', dataScope: 'all' as const, includePassages: true, limit: 20 };
      const run = async (ix: ElasticsearchSearchIndex) => {
        const q = buildSearchQuery(body, { canViewSerff: true }, { offset: 0 });
        const page = await ix.search(q);
        const passages = await ix.passages(q, page.hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId }))), 2);
        return { hits: page.hits.map((h) => [h.filing.id, h.matches]), passages: [...passages.entries()].sort() };
      };
      const within = await run(index);
      assert.ok(within.passages.length > 5);
      assert.deepEqual(await run(new ElasticsearchSearchIndex(client, { alias, pagesWithText: 3 })), within);
    });

    it('rule: a page without a number, a file without a versionId and a name beyond the name keyword\'s 1,024 characters are listed alike with and without passages', async () => {
      const base = toIndexedFilings(buildRelevanceCorpus()).find((f) => f.filing.id === corpusId('solar-panels'))!;
      const name = `${'Long '.repeat(250)}Zeppelin Schedule.pdf`;
      await index.upsert(ctx, [{ ...base, version: base.version + 1, documents: [{ ...base.documents[0], name, versionId: null, pages: [{ page: null, text: 'Zeppelin hangar rates. Zeppelin mooring fees apply.' }] }] }]);
      const listed = async (includePassages: boolean) => {
        const q = buildSearchQuery({ query: 'zeppelin', dataScope: 'all', includePassages }, { canViewSerff: true }, { offset: 0 });
        const page = await index.search(q);
        const passages = await index.passages(q, page.hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId }))), 2);
        return { matches: page.hits.map((h) => h.matches), passages: [...passages.values()] };
      };
      // Without passages the listing comes from sort values (a missing page sorts last as Integer.MAX_VALUE, a missing keyword as null).
      const withoutText = await listed(false);
      assert.deepEqual(withoutText.matches, [[{ fileId: base.documents[0].fileId, versionId: null, name: '' }]], 'the name is beyond ignore_above: not in the keyword, as before');
      assert.deepEqual(withoutText.passages, [[{ text: 'Zeppelin hangar rates. … Zeppelin mooring fees apply.', pageStart: null, pageEnd: null }]]);
      const withText = await listed(true);
      assert.deepEqual(withText.passages, withoutText.passages);
      assert.deepEqual(withText.matches.map((m) => m.map((x) => [x.fileId, x.versionId])), withoutText.matches.map((m) => m.map((x) => [x.fileId, x.versionId])));
      await index.upsert(ctx, [{ ...base, version: base.version + 2 }]);
    });

    it('rule: with a records port, results show the catalog read model\'s record; a filing it does not hold yet keeps the indexed one', async () => {
      const catalog = await catalogTable();
      try {
        const body = { query: 'hurricane deductible credit', dataScope: 'all' as const, includePassages: true };
        const fromIndex = await index.search(buildSearchQuery(body, { canViewSerff: true }, { offset: 0 }));
        assert.ok(fromIndex.hits.length >= 2);
        const [first, ...rest] = fromIndex.hits;
        // The catalog holds every hit but the first, one of them renamed since it was indexed.
        const renamed = { ...rest[0].filing, companyName: `${rest[0].filing.companyName} (renamed)` };
        await catalog.put(rest.map((h) => ({ filing: h.filing.id === renamed.id ? renamed : h.filing, documents: [], version: 1 })));
        const withPort = new ElasticsearchSearchIndex(client, { alias, records: new CatalogFilingRecords(catalog.knex) });
        const q = buildSearchQuery(body, { canViewSerff: true }, { offset: 0 });
        const page = await withPort.search(q);
        assert.deepEqual(page.hits.map((h) => h.filing.id), fromIndex.hits.map((h) => h.filing.id));
        assert.deepEqual(page.hits.map((h) => h.matches), fromIndex.hits.map((h) => h.matches));
        assert.deepEqual(page.hits[0].filing, first.filing);
        assert.deepEqual(page.hits[1].filing, recordOf(renamed));
        assert.deepEqual(page.hits.slice(2).map((h) => h.filing), rest.slice(1).map((h) => h.filing));
        const matches = page.hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId })));
        assert.deepEqual([...(await withPort.passages(q, matches, 2)).entries()].sort(), [...(await index.passages(q, matches, 2)).entries()].sort());
      } finally {
        await catalog.knex.destroy();
      }
    });
  });
}

if (url) {
  describe('ElasticsearchSearchIndex: filing-level ranking', function () {
    this.timeout(60_000);
    const client = new Client({ node: url });
    const alias = uniqueAlias();
    const index = new ElasticsearchSearchIndex(client, { alias });
    const capped = new ElasticsearchSearchIndex(client, { alias, filingCap: () => 3 });
    const ctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
    const relevance: SortKey[] = [{ field: 'relevance', direction: 'desc' }];
    const query = (body: { query: string; sort?: SortKey[]; intent?: string; filters?: SearchBody['filters'] }, window: number) => ({ ...buildSearchQuery({ sort: relevance, ...body, dataScope: 'all' }, { canViewSerff: true }, { offset: 0 }), window, limit: 200 });
    const corpus = toIndexedFilings(buildRelevanceCorpus());
    const solar = corpus.find((f) => f.filing.id === corpusId('solar-panels'))!;
    // Each keyword on a page of its own file: only the filing as a whole holds both.
    const split: IndexedFiling = {
      ...solar,
      filing: { ...solar.filing, id: '00000000-0000-4000-8000-00000000a11d', source: 'serff', sourceReference: 'SPLIT-1', description: null },
      documents: [
        { ...solar.documents[0], fileId: '00000000-0000-4000-8000-00000000f001', name: 'a.pdf', pages: [{ page: 1, text: 'The quokka schedule applies.' }] },
        { ...solar.documents[0], fileId: '00000000-0000-4000-8000-00000000f002', name: 'b.pdf', pages: [{ page: 1, text: 'A wombat endorsement follows.' }, { page: 2, text: 'Wombat wombat.' }] },
      ],
    };
    // The same unusual word in a filing without a submission date, one from 2017 and one from 2018.
    const dated = ([null, '2017-12-31', '2018-01-01'] as const).map((submissionDate, i): IndexedFiling => ({
      ...solar,
      filing: { ...solar.filing, id: `00000000-0000-4000-8000-00000000d0${i}0`, sourceReference: `DATED-${i}`, submissionDate },
      documents: [{ ...solar.documents[0], fileId: `00000000-0000-4000-8000-00000000d0${i}1`, pages: [{ page: 1, text: 'A zebu herd.' }] }],
    }));
    before(async () => {
      await index.createSchema(ctx.trx, ctx.table);
      await index.upsert(ctx, [...corpus, split, ...dated]);
    });
    after(async () => {
      await dropTestIndexes(client, alias);
      await client.close();
    });

    it('rule: the AND tier holds filings with every keyword somewhere, not only on one page; matches list each file by its own pages', async () => {
      const page = await index.search(query({ query: 'quokka wombat' }, 100));
      assert.deepEqual(page.hits.map((h) => h.filing.id), [split.filing.id]);
      assert.deepEqual(page.hits[0].matches.map((m) => m.fileId).sort(), split.documents.map((d) => d.fileId).sort());
    });

    it('rule: a quoted phrase must occur within one page, never across a page break', async () => {
      const narrow: SearchBody['filters'] = [{ field: 'trackingNumber', operator: 'eq', value: 'SPLIT-1' }];
      assert.deepEqual((await index.search(query({ query: '"wombat endorsement"', filters: narrow }, 100))).hits.map((h) => h.filing.id), [split.filing.id]);
      // Two files, each with one of the words.
      assert.deepEqual((await index.search(query({ query: '"quokka wombat"', filters: narrow }, 100))).hits.length, 0);
      // "follows. Wombat" spans page 1 and page 2 of the same file.
      assert.deepEqual((await index.search(query({ query: '"follows wombat"', filters: narrow }, 100))).hits.length, 0);
    });

    it('rule: dataScope recent is a submission date from 2018-01-01 or none; historical is before it', async () => {
      const scoped = async (dataScope: 'recent' | 'historical' | 'all') => (await index.search({ ...buildSearchQuery({ query: 'zebu', sort: relevance, dataScope }, { canViewSerff: true }, { offset: 0 }), limit: 200 })).hits.map((h) => h.filing.sourceReference).sort();
      assert.deepEqual(await scoped('recent'), ['DATED-0', 'DATED-2']);
      assert.deepEqual(await scoped('historical'), ['DATED-1']);
      assert.deepEqual(await scoped('all'), ['DATED-0', 'DATED-1', 'DATED-2']);
    });

    it('rule: a tier that hit the filing cap reports exhaustive: false, even with the window not full', async () => {
      const body = { query: 'rate territory' };
      const full = await index.search(query(body, 1200));
      assert.equal(full.exhaustive, true);
      assert.ok(full.candidates > 3);
      const bounded = await capped.search(query(body, 1200));
      assert.equal(bounded.exhaustive, false);
      assert.ok(bounded.candidates >= 1 && bounded.candidates <= 3, `${bounded.candidates} filings`);
    });
  });
}

if (url) {
  describe('ElasticsearchSearchIndex: leftovers of an interrupted rebuild', function () {
    this.timeout(60_000);
    const client = new Client({ node: url });
    const alias = uniqueAlias();
    const index = new ElasticsearchSearchIndex(client, { alias });
    const trx = undefined as unknown as Knex.Transaction;
    const live = (n: string) => n;
    const shadow = (n: string) => `${n}__rb`;
    const filing = toIndexedFilings(buildRelevanceCorpus()).find((f) => f.filing.id === corpusId('solar-panels'))!;
    after(async () => {
      await dropTestIndexes(client, alias);
      await client.close();
    });

    it('rule: discardShadow deletes the index a rebuild built under its shadow alias, never the live one', async () => {
      await index.createSchema(trx, live);
      await index.upsert({ trx, table: live }, [{ ...filing, position: 10n }]);
      const liveIndexes = Object.keys(await client.indices.getAlias({ name: alias }));
      await index.createSchema(trx, shadow);
      assert.equal(await client.indices.existsAlias({ name: shadow(alias) }), true);
      await index.discardShadow(shadow);
      assert.equal(await client.indices.existsAlias({ name: shadow(alias) }), false);
      assert.deepEqual(Object.keys(await client.indices.getAlias({ name: alias })), liveIndexes);
      await index.discardShadow(shadow);
      assert.ok((await client.count({ index: alias })).count > 0, 'the live index keeps its documents');
    });
  });
}
