import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import type { Knex } from 'knex';
import { ElasticsearchSearchIndex } from '../../infra/search/elasticsearch-search-index';
import { buildSearchQuery } from '../../queries/search/search-query';
import type { SortKey } from '../../src/ports/search-index';
import { searchIndexContract } from '../contracts/search-index.contract';
import { buildRelevanceCorpus, corpusId, toIndexedFilings } from '../files/relevance/corpus';
import { dropTestIndexes, testElasticsearchUrl, uniqueAlias } from '../support/elasticsearch';

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
  });
}

if (url) {
  describe('ElasticsearchSearchIndex: bounded ranking and the file bonus from the window\'s details', function () {
    this.timeout(60_000);
    const client = new Client({ node: url });
    const alias = uniqueAlias();
    const index = new ElasticsearchSearchIndex(client, { alias });
    // The file bonus always from the terms aggregation over the candidates (the design before the details carried it).
    const aggregation = new ElasticsearchSearchIndex(client, { alias, wholeWindowDetails: 0 });
    const capped = new ElasticsearchSearchIndex(client, { alias, documentCap: () => 3 });
    const ctx = { trx: undefined as unknown as Knex.Transaction, table: (n: string) => n };
    const query = (body: { query: string; sort?: SortKey[]; intent?: string }, window: number) => ({ ...buildSearchQuery({ ...body, dataScope: 'all' }, { canViewSerff: true }, { offset: 0 }), window, limit: 200 });
    before(async () => {
      await index.createSchema(ctx.trx, ctx.table);
      await index.upsert(ctx, toIndexedFilings(buildRelevanceCorpus()));
    });
    after(async () => {
      await dropTestIndexes(client, alias);
      await client.close();
    });

    const relevance: SortKey[] = [{ field: 'relevance', direction: 'desc' }];
    for (const body of [{ query: 'rate territory', sort: relevance }, { query: 'roof hail deductible', intent: 'how roof age changes settlement', sort: relevance }, { query: 'wildfire geothermal', sort: relevance }]) {
      for (const window of [3, 20, 1200]) {
        it(`"${body.query}", window ${window}: the same filings, order, scores and exhaustive as with the aggregation`, async () => {
          const [a, b] = [await index.search(query(body, window)), await aggregation.search(query(body, window))];
          assert.ok(b.hits.length > 0);
          assert.deepEqual(a.hits.map((h) => [h.filing.id, h.score.toFixed(4), h.matches]), b.hits.map((h) => [h.filing.id, h.score.toFixed(4), h.matches]));
          assert.equal(a.exhaustive, b.exhaustive);
          assert.equal(a.candidates, b.candidates);
        });
      }
    }

    it('rule: a tier that hit the document cap reports exhaustive: false, even with the window not full', async () => {
      const body = { query: 'rate territory', sort: relevance };
      const full = await index.search(query(body, 1200));
      assert.equal(full.exhaustive, true);
      assert.ok(full.candidates > 3);
      const bounded = await capped.search(query(body, 1200));
      assert.equal(bounded.exhaustive, false);
      assert.ok(bounded.candidates >= 1 && bounded.candidates <= 3, `${bounded.candidates} filings from 3 documents`);
    });
  });
}
