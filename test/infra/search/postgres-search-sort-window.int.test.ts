import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import { PostgresSearchIndex } from '../../../infra/search/postgres-search-index';
import { buildSearchQuery, type SearchBody } from '../../../queries/search/search-query';
import type { IndexedFiling, SearchHit, SortKey } from '../../../src/ports/search-index';
import { freshDatabaseUrl } from '../../support/postgres';
import { aFiling } from '../../support/catalog-filing-mother';

/**
 * Under a metadata sort the large window is cut without scoring the AND tier's candidates; scores are
 * computed only for the filings whose sort keys tie with the page's. Paging through such a window must give
 * exactly the order the spec defines: the sort keys, then relevance, then filing id, with the scores the
 * relevance order computes.
 */
/** A fresh database holding a Postgres search index of these filings. */
async function indexOf(filings: IndexedFiling[]): Promise<{ knex: Knex; index: PostgresSearchIndex }> {
  const knex = knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 0, max: 2 } });
  const index = new PostgresSearchIndex(knex);
  const t = (n: string) => n;
  await knex.transaction((trx) => index.createSchema(trx, t));
  await knex.transaction((trx) => index.upsert({ trx, table: t }, filings));
  return { knex, index };
}

describe('PostgresSearchIndex: a metadata sort over the candidate window', function () {
  this.timeout(60_000);
  let knex: Knex;
  let index: PostgresSearchIndex;
  const dates = ['2024-01-01', '2023-06-01', null, '2022-02-02'];
  const companies = ['Bravo Mutual', 'Alpha Casualty', 'Charlie Insurance'];
  // 30 filings hold both words (AND tier), 10 only one (OR tier); word counts vary the scores, dates and companies tie.
  const filings: IndexedFiling[] = Array.from({ length: 40 }, (_, i) => ({
    filing: aFiling({ submissionDate: dates[i % dates.length], companyName: companies[i % companies.length] }),
    version: 1,
    documents: [
      {
        fileId: crypto.randomUUID(),
        name: 'Manual.pdf',
        versionId: null,
        textRevision: 'r1',
        pages: [{ page: 1, text: `${'zephyr '.repeat(1 + (i % 4))}${i < 30 ? 'quokka '.repeat(1 + (i % 3)) : ''}filler text ${i}` }],
      },
    ],
  }));

  const query = (sort: SortKey[], offset: number, limit: number, body: Partial<SearchBody> = {}) =>
    buildSearchQuery({ query: 'zephyr quokka', dataScope: 'all', sort, limit, ...body }, { canViewSerff: true }, { offset });

  /** The spec's order, from the relevance order's scores. */
  function expected(all: SearchHit[], sort: SortKey[]): { id: string; score: number }[] {
    const value = (h: SearchHit, k: SortKey) => (k.field === 'relevance' ? h.score : (h.filing as unknown as Record<string, string | null>)[k.field]);
    const cmp = (a: SearchHit, b: SearchHit) => {
      for (const k of sort) {
        const x = value(a, k);
        const y = value(b, k);
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * (k.direction === 'asc' ? 1 : -1);
      }
      if (a.score !== b.score) return b.score - a.score;
      return a.filing.id < b.filing.id ? -1 : 1;
    };
    return [...all].sort(cmp).map((h) => ({ id: h.filing.id, score: h.score }));
  }

  before(async () => {
    ({ knex, index } = await indexOf(filings));
  });
  after(() => knex?.destroy());

  const sorts: SortKey[][] = [
    [{ field: 'submissionDate', direction: 'desc' }],
    [{ field: 'submissionDate', direction: 'asc' }],
    [{ field: 'companyName', direction: 'asc' }, { field: 'submissionDate', direction: 'desc' }],
    [{ field: 'state', direction: 'asc' }],
    [{ field: 'companyName', direction: 'desc' }, { field: 'relevance', direction: 'desc' }],
  ];
  for (const sort of sorts) {
    it(`rule: sort ${sort.map((k) => `${k.field} ${k.direction}`).join(', ')} orders the window by its keys, then relevance, then filing id, on every page`, async () => {
      const byRelevance = await index.search(query([{ field: 'relevance', direction: 'desc' }], 0, 200));
      assert.equal(byRelevance.hits.length, 40);
      const want = expected(byRelevance.hits, sort);
      const got: { id: string; score: number }[] = [];
      for (let offset = 0; offset < 40; offset += 7) {
        const page = await index.search(query(sort, offset, 7));
        assert.equal(page.candidates, 40);
        assert.equal(page.exhaustive, true);
        got.push(...page.hits.map((h) => ({ id: h.filing.id, score: h.score })));
      }
      assert.deepEqual(got, want);
    });
  }

  it('rule: a page past the window is empty, with the counts', async () => {
    const page = await index.search(query([{ field: 'submissionDate', direction: 'desc' }], 40, 7));
    assert.deepEqual(page.hits, []);
    assert.equal(page.candidates, 40);
  });

  it('a honoured phrase is checked on the window cut by a metadata sort too', async () => {
    const page = await index.search(query([{ field: 'submissionDate', direction: 'desc' }], 0, 50, { query: '"zephyr quokka"', filters: [{ field: 'state', operator: 'eq', value: 'FL' }] }));
    // Only the AND tier's filings have the two words next to each other.
    assert.equal(page.hits.length, 30);
    assert.ok(page.hits.every((h) => filings.findIndex((f) => f.filing.id === h.filing.id) < 30));
  });
});

describe('PostgresSearchIndex: a metadata sort over a full window', function () {
  this.timeout(120_000);
  let knex: Knex;
  let index: PostgresSearchIndex;
  const one = (text: string, i: number): IndexedFiling => ({
    filing: aFiling({ submissionDate: `2024-01-${String(1 + (i % 28)).padStart(2, '0')}` }),
    version: 1,
    documents: [{ fileId: crypto.randomUUID(), name: 'Rules.pdf', versionId: null, textRevision: 'r1', pages: [{ page: 1, text }] }],
  });
  // 1,190 filings hold both words, 15 only granite, 20 only basalt: granite alone overflows the window (1,200).
  const filings = [
    ...Array.from({ length: 1190 }, (_, i) => one('basalt and granite', i)),
    ...Array.from({ length: 15 }, (_, i) => one('granite only', i)),
    ...Array.from({ length: 20 }, (_, i) => one('basalt only', i)),
  ];
  const query = (text: string, offset: number, sort: SortKey[] = [{ field: 'submissionDate', direction: 'desc' }]) =>
    buildSearchQuery({ query: text, dataScope: 'all', sort, limit: 200 }, { canViewSerff: true }, { offset });

  before(async () => {
    ({ knex, index } = await indexOf(filings));
  });
  after(() => knex?.destroy());

  async function window(text: string, sort?: SortKey[]): Promise<{ ids: string[]; exhaustive: boolean[] }> {
    const ids: string[] = [];
    const exhaustive: boolean[] = [];
    for (let offset = 0; offset < 1400; offset += 200) {
      const page = await index.search(query(text, offset, sort));
      assert.equal(page.candidates, 1200);
      ids.push(...page.hits.map((h) => h.filing.id));
      exhaustive.push(page.exhaustive);
    }
    return { ids, exhaustive };
  }

  it('rule: a capped AND tier fills the window (1,200 distinct filings) and is not exhaustive', async () => {
    const w = await window('granite');
    assert.equal(new Set(w.ids).size, 1200);
    assert.ok(w.exhaustive.every((x) => x === false));
  });

  it('rule: the OR tier fills only the room the AND tier leaves, and more matches make the result non-exhaustive', async () => {
    for (const sort of [[{ field: 'submissionDate', direction: 'desc' }], [{ field: 'relevance', direction: 'desc' }]] as SortKey[][]) {
      const w = await window('basalt granite', sort);
      assert.equal(new Set(w.ids).size, 1200);
      const both = new Set(filings.slice(0, 1190).map((f) => f.filing.id));
      assert.equal(w.ids.filter((id) => both.has(id)).length, 1190, `every AND-tier filing is in the window (${sort[0].field})`);
      assert.ok(w.exhaustive.every((x) => x === false));
    }
  });
});
