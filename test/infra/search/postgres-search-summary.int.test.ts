import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { PostgresSearchIndex } from '../../../infra/search/postgres-search-index';
import { buildSearchQuery, type SearchBody } from '../../../queries/search/search-query';
import type { IndexedFiling, SearchDocument } from '../../../src/ports/search-index';
import { freshDatabaseUrl } from '../../support/postgres';
import { aFiling } from '../../support/catalog-filing-mother';

function doc(name: string, pages: string[]): SearchDocument {
  return { fileId: crypto.randomUUID(), name, versionId: null, textRevision: 'r1', pages: pages.map((text, i) => ({ page: i + 1, text })) };
}

describe('PostgresSearchIndex: filing summary vector and page rows', function () {
  this.timeout(60_000);
  let knex: Knex;
  let index: PostgresSearchIndex;
  const t = (n: string) => n;
  const write = (filings: IndexedFiling[]) => knex.transaction((trx) => index.upsert({ trx, table: t }, filings));
  const search = (body: Partial<SearchBody> & { query: string }) =>
    index.search(buildSearchQuery({ dataScope: 'all', sort: [{ field: 'relevance', direction: 'desc' }], ...body }, { canViewSerff: true }, { offset: 0 }));

  // Keywords split across two files of one filing; a phrase split across two pages; a metadata-only match.
  const split = { filing: aFiling({ companyName: 'Split Mutual' }), version: 1, documents: [doc('Rules.pdf', ['glacier coverage terms']), doc('Rates.pdf', ['moraine factor table'])] };
  const phraseOnePage = { filing: aFiling({ companyName: 'Phrase Mutual' }), version: 1, documents: [doc('Manual.pdf', ['the quartz shingle credit applies', 'other text'])] };
  const phraseTwoPages = { filing: aFiling({ companyName: 'Broken Mutual' }), version: 1, documents: [doc('Manual.pdf', ['credit for quartz', 'shingle roofs only'])] };
  const metaOnly = { filing: aFiling({ companyName: 'Obsidian Casualty Company' }), version: 1, documents: [doc('Memo.pdf', ['nothing relevant here'])] };

  before(async () => {
    knex = knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 0, max: 2 } });
    index = new PostgresSearchIndex(knex);
    await knex.transaction((trx) => index.createSchema(trx, t));
    await write([split, phraseOnePage, phraseTwoPages, metaOnly]);
  });
  after(() => knex?.destroy());

  it('rule: the AND tier takes filings holding every keyword anywhere in their documents; matches list each file holding one', async () => {
    const page = await search({ query: 'glacier moraine' });
    assert.deepEqual(page.hits.map((h) => h.filing.id), [split.filing.id]);
    assert.deepEqual(page.hits[0].matches.map((m) => m.name).sort(), ['Rates.pdf', 'Rules.pdf']);
    assert.equal(page.exhaustive, true);
  });

  it('rule: an honoured phrase must occur within one page, not across a page break', async () => {
    const page = await search({ query: '"quartz shingle"', filters: [{ field: 'state', operator: 'eq', value: 'FL' }] });
    assert.deepEqual(page.hits.map((h) => h.filing.id), [phraseOnePage.filing.id]);
    assert.deepEqual(page.hits[0].matches.map((m) => m.name), ['Manual.pdf']);
  });

  it('a filing that matches by its metadata alone is a candidate with no matched files', async () => {
    const page = await search({ query: 'obsidian' });
    assert.deepEqual(page.hits.map((h) => h.filing.id), [metaOnly.filing.id]);
    assert.deepEqual(page.hits[0].matches, []);
  });

  it('a newer version rebuilds the summary: words only the old documents had no longer select the filing', async () => {
    await write([{ ...split, version: 2, documents: [doc('Rules.pdf', ['tundra coverage terms'])] }]);
    assert.deepEqual((await search({ query: 'moraine' })).hits, []);
    assert.deepEqual((await search({ query: 'tundra' })).hits.map((h) => h.filing.id), [split.filing.id]);
  });

  it('a summary of a few pages is kept in the row uncompressed, with the length ts_rank normalizes by (filter marks left out)', async () => {
    const words = Array.from({ length: 250 }, (_, i) => `term${i} filler${i % 37}`).join(' ');
    const wide = { filing: aFiling(), version: 1, documents: [doc('Wide.pdf', [words, `${words} again`])] };
    await write([wide]);
    const row = (
      await knex.raw(
        `select pg_column_compression(doc_tsv) as compression, pg_column_size(doc_tsv) as size, doc_len,
           (select pg_relation_size(reltoastrelid) from pg_class where relname = 'search_filings') as toast,
           ts_rank(ts_delete(doc_tsv, array['state FL', 'scope recent']), q, 1) as normalized, ts_rank(doc_tsv, q, 0) / (ln(doc_len + 1) / ln(2)) as from_len
         from search_filings, to_tsquery('english', 'term5 | filler3') q where filing_id = ?`,
        [wide.filing.id],
      )
    ).rows[0];
    // Past Postgres' default 2 kB a row's summary would be compressed (or moved to TOAST).
    assert.ok(row.size > 3000, `summary of ${row.size} bytes`);
    assert.equal(row.compression, null);
    assert.equal(Number(row.toast), 0);
    assert.ok(Math.abs(row.normalized - row.from_len) < 1e-6, `${row.normalized} vs ${row.from_len}`);
  });

  it('rule: state and dataScope filters hold through the filter marks, which follow a newer version and never match a word', async () => {
    const moving = { filing: aFiling({ state: 'OK', submissionDate: '2016-05-01' }), version: 1, documents: [doc('Plan.pdf', ['pumice schedule'])] };
    await write([moving]);
    const found = (body: Partial<SearchBody>) => search({ query: 'pumice', ...body }).then((p) => p.hits.map((h) => h.filing.id));
    assert.deepEqual(await found({ filters: [{ field: 'state', operator: 'in', value: ['tx', 'ok'] }], dataScope: 'historical' }), [moving.filing.id]);
    assert.deepEqual(await found({ filters: [{ field: 'state', operator: 'eq', value: 'OK' }], dataScope: 'recent' }), []);
    await write([{ ...moving, version: 2, filing: { ...moving.filing, state: 'TX', submissionDate: null } }]);
    assert.deepEqual(await found({ filters: [{ field: 'state', operator: 'eq', value: 'OK' }] }), []);
    assert.deepEqual(await found({ filters: [{ field: 'state', operator: 'eq', value: 'TX' }], dataScope: 'recent' }), [moving.filing.id]);
    assert.deepEqual(await found({ dataScope: 'historical' }), []);
    // A mark holds a space: the words of one never select a filing whose text lacks them.
    assert.deepEqual((await search({ query: 'state scope recent' })).hits, []);
  });

  it('passages come from a window of the page around its first match, with the matched words', async () => {
    const filler = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const long = { filing: aFiling(), version: 1, documents: [doc('Long.pdf', [`${filler} the basalt endorsement removes flood cover ${filler}`])] };
    await write([long]);
    const q = buildSearchQuery({ query: 'basalt', dataScope: 'all' }, { canViewSerff: true }, { offset: 0 });
    const page = await index.search(q);
    const p = await index.passages(q, [{ filingId: long.filing.id, fileId: page.hits[0].matches[0].fileId }], 2);
    const text = p.get(page.hits[0].matches[0].fileId)![0].text;
    assert.match(text, /basalt endorsement/);
  });
});
