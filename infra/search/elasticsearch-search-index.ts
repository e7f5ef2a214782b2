import type { Client, estypes } from '@elastic/elasticsearch';
import type { Knex } from 'knex';
import type { CatalogFilingFields } from '../../commands/catalog/catalog-events';
import type { IndexWriteContext, IndexedFiling, MatchRef, Passage, SearchHit, SearchIndex, SearchPage, SearchQuery, SortKey } from '../../src/ports/search-index';
import { INDEX_MAPPINGS, INDEX_SETTINGS } from './elasticsearch/mapping';
import { WEIGHTS, filterOnlyQuery, highlightQuery, isTextual, pageQuery, rankingQuery, type TextQuery } from './elasticsearch/query';
import { removeFilings, upsertFilings } from './elasticsearch/writes';

/** Matched files listed per filing (the endpoint shows 20). */
const FILES_PER_FILING = 20;
/** The stop words of Elasticsearch's `english` analyzer (Lucene's English stop set). */
const ENGLISH_STOP = new Set(['a', 'an', 'and', 'are', 'as', 'at', 'be', 'but', 'by', 'for', 'if', 'in', 'into', 'is', 'it', 'no', 'not', 'of', 'on', 'or', 'such', 'that', 'the', 'their', 'then', 'there', 'these', 'they', 'this', 'to', 'was', 'will', 'with']);

/** Whether the `english` analyzer keeps any term (no `_analyze` round trip): a letter/digit run that is not a stop word. */
export function hasSearchableWord(text: string): boolean {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).some((w) => !ENGLISH_STOP.has(w));
}
const SORT_FIELDS: Record<Exclude<SortKey['field'], 'relevance'>, string> = {
  submissionDate: 'submissionDate',
  dispositionDate: 'dispositionDate',
  stateStatusChangedDate: 'stateStatusChangedDate',
  companyName: 'companyName',
  state: 'state',
};

const BY_SCORE_THEN_FILING: estypes.Sort = [{ _score: { order: 'desc' } }, { filingId: { order: 'asc' } }];
const BY_SCORE_THEN_FILE: estypes.Sort = [{ _score: { order: 'desc' } }, { fileId: { order: 'asc' } }];
const BY_SCORE_THEN_PAGE: estypes.Sort = [{ _score: { order: 'desc' } }, { page: { order: 'asc', missing: '_last' } }, { segment: { order: 'asc' } }];
/** Filters alone: newest first, as the Postgres adapter. */
const NEWEST_FIRST: estypes.Sort = [{ submissionDate: { order: 'desc', missing: '_last' } }, { filingId: { order: 'asc' } }];

interface Candidate {
  filingId: string;
  score: number;
  fields: Record<string, string | null>;
}

export interface ElasticsearchSearchIndexOptions {
  /** The live alias; physical indexes are `<alias>-<suffix>` and a rebuild writes through `<alias>__rb`. */
  alias?: string;
}

/**
 * SearchIndex on Elasticsearch 8. Index design: see `elasticsearch/mapping.ts`; ranking:
 * `elasticsearch/query.ts`; idempotent at-least-once writes: `elasticsearch/writes.ts`.
 *
 * Aliases and rebuilds: the service reads and writes through aliases, never physical names.
 * `createSchema(trx, t)` creates a fresh physical index and points the alias `t(alias)` at it (the
 * live alias on first start, `<alias>__rb` during `ifrs projections rebuild`), deleting whatever that
 * alias held before (the projection restarts from the beginning of the log). At the end of a
 * rebuild the engine calls `promote`, which moves the live alias to the rebuilt index in one
 * `_aliases` request and deletes the old index. The Postgres tables of the adapter: none.
 */
export class ElasticsearchSearchIndex implements SearchIndex {
  readonly tables: readonly string[] = [];
  /** Projector version 101: moving a database from the Postgres adapter to this one rebuilds the projection into Elasticsearch. */
  readonly schemaVersion = 100;
  private readonly alias: string;

  constructor(private readonly client: Client, options: ElasticsearchSearchIndexOptions = {}) {
    this.alias = options.alias ?? 'ifrs-search';
  }

  // ---- schema and aliases ----

  private async indicesOf(alias: string): Promise<string[]> {
    const exists = await this.client.indices.existsAlias({ name: alias });
    if (!exists) return [];
    return Object.keys(await this.client.indices.getAlias({ name: alias }));
  }

  async createSchema(_trx: Knex.Transaction, t: (logical: string) => string): Promise<void> {
    const alias = t(this.alias);
    const physical = `${this.alias}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    await this.client.indices.create({ index: physical, settings: INDEX_SETTINGS, mappings: INDEX_MAPPINGS });
    const old = await this.indicesOf(alias);
    await this.client.indices.updateAliases({
      actions: [...old.map((index) => ({ remove: { index, alias } })), { add: { index: physical, alias, is_write_index: true } }],
    });
    if (old.length) await this.client.indices.delete({ index: old, ignore_unavailable: true });
  }

  async promote(shadow: (logical: string) => string): Promise<void> {
    const from = shadow(this.alias);
    if (from === this.alias) return;
    const rebuilt = await this.indicesOf(from);
    if (rebuilt.length !== 1) throw new Error(`search index: the rebuild alias ${from} names ${rebuilt.length} indexes`);
    const old = (await this.indicesOf(this.alias)).filter((i) => i !== rebuilt[0]);
    await this.client.indices.updateAliases({
      actions: [
        ...old.map((index) => ({ remove: { index, alias: this.alias } })),
        { add: { index: rebuilt[0], alias: this.alias, is_write_index: true } },
        { remove: { index: rebuilt[0], alias: from } },
      ],
    });
    if (old.length) await this.client.indices.delete({ index: old, ignore_unavailable: true });
  }

  // ---- writes ----

  /** Acknowledged and refreshed when it returns: the caller's checkpoint may move, and searches see the write. */
  async upsert(ctx: IndexWriteContext, filings: IndexedFiling[]): Promise<void> {
    const index = ctx.table(this.alias);
    await upsertFilings(this.client, index, filings);
    await this.client.indices.refresh({ index });
  }

  async remove(ctx: IndexWriteContext, filingIds: string[]): Promise<void> {
    const index = ctx.table(this.alias);
    await removeFilings(this.client, index, filingIds);
    await this.client.indices.refresh({ index });
  }

  // ---- search ----

  /** Keywords that analyse to no term (only stop words) select nothing by text, as plainto_tsquery's empty query. */
  private async textOf(q: SearchQuery): Promise<TextQuery | null> {
    if (q.reference) return null;
    let keywords: string | null = q.keywords.trim() || null;
    if (keywords && !hasSearchableWord(keywords)) keywords = null;
    return { keywords, phrases: q.phrases, intent: q.intent };
  }

  private docvalueFields(sort: SortKey[]): estypes.QueryDslFieldAndFormat[] {
    return sort.filter((k) => k.field !== 'relevance').map((k) => {
      const field = SORT_FIELDS[k.field as keyof typeof SORT_FIELDS];
      return field.endsWith('Date') ? { field, format: 'yyyy-MM-dd' } : { field };
    });
  }

  private candidatesOf(hits: estypes.SearchHit[], sort: SortKey[], scored: boolean): Candidate[] {
    return hits.map((h) => {
      const fields: Record<string, string | null> = {};
      for (const k of sort) if (k.field !== 'relevance') fields[k.field] = ((h.fields?.[SORT_FIELDS[k.field]] as string[] | undefined) ?? [null])[0];
      return { filingId: h._id!, score: scored ? (h._score ?? 0) : 0, fields };
    });
  }

  /** The best `window + 1` filings: collapse on filingId ranks each filing by its best document. */
  private async rank(q: SearchQuery, text: TextQuery | null): Promise<Candidate[]> {
    const size = q.window + 1;
    if (!isTextual(text)) {
      const res = await this.client.search({
        index: this.alias,
        query: filterOnlyQuery(q),
        sort: NEWEST_FIRST,
        size,
        stored_fields: ['_none_'],
        docvalue_fields: [{ field: 'filingId' }, ...this.docvalueFields(q.sort)],
        track_total_hits: false,
      });
      return this.candidatesOf(res.hits.hits.map((h) => ({ ...h, _id: (h.fields!.filingId as string[])[0] })), q.sort, false);
    }
    const collapsed = (all: boolean) =>
      this.client.search({
        index: this.alias,
        query: rankingQuery(q, text, all),
        collapse: { field: 'filingId' },
        sort: BY_SCORE_THEN_FILING,
        size,
        // Only doc values are read for the (up to 1,201) hits: no _id or _source from stored fields.
        stored_fields: ['_none_'],
        docvalue_fields: [{ field: 'filingId' }, ...this.docvalueFields(q.sort)],
        track_total_hits: false,
      });
    // AND first (far fewer documents to score than OR for common words); the OR only when the AND matches leave the window short.
    let res = await collapsed(true);
    if (res.hits.hits.length < size && (text.keywords ?? '').trim().split(/\s+/).length > 1) res = await collapsed(false);
    const out = res.hits.hits.map((h) => ({ ...h, _id: (h.fields!.filingId as string[])[0] }));
    const candidates = this.candidatesOf(out, q.sort, true);
    await this.addFileBonus(text, candidates);
    candidates.sort((a, b) => b.score - a.score || (a.filingId < b.filingId ? -1 : a.filingId > b.filingId ? 1 : 0));
    return candidates;
  }

  /** `+ files · ln(files matched)` per filing, counted over the candidates only. */
  private async addFileBonus(text: TextQuery, candidates: Candidate[]): Promise<void> {
    if (!candidates.length) return;
    const res = await this.client.search({
      index: this.alias,
      query: pageQuery(text, candidates.map((c) => c.filingId), undefined, false),
      size: 0,
      track_total_hits: false,
      aggs: { f: { terms: { field: 'filingId', size: candidates.length }, aggs: { files: { cardinality: { field: 'fileId' } } } } },
    });
    const buckets = (res.aggregations?.f as estypes.AggregationsStringTermsAggregate | undefined)?.buckets as estypes.AggregationsStringTermsBucket[] | undefined;
    const files = new Map((buckets ?? []).map((b) => [String(b.key), (b.files as estypes.AggregationsCardinalityAggregate).value]));
    for (const c of candidates) {
      const n = files.get(c.filingId) ?? 0;
      if (n > 1) c.score += WEIGHTS.files * Math.log(n);
    }
  }

  /** Sort within the window: each key nulls last, then relevance, then filing id (as the Postgres ORDER BY). */
  private order(candidates: Candidate[], sort: SortKey[]): Candidate[] {
    const cmp = (a: Candidate, b: Candidate): number => {
      for (const k of sort) {
        if (k.field === 'relevance') {
          if (a.score !== b.score) return b.score - a.score;
          continue;
        }
        const x = a.fields[k.field];
        const y = b.fields[k.field];
        if (x === y) continue;
        if (x === null) return 1;
        if (y === null) return -1;
        const c = x < y ? -1 : 1;
        return k.direction === 'asc' ? c : -c;
      }
      return b.score - a.score || (a.filingId < b.filingId ? -1 : a.filingId > b.filingId ? 1 : 0);
    };
    return [...candidates].sort(cmp);
  }

  private async records(ids: string[]): Promise<Map<string, CatalogFilingFields>> {
    if (!ids.length) return new Map();
    const res = await this.client.mget<{ record: CatalogFilingFields }>({ index: this.alias, ids, _source_includes: ['record'] });
    const out = new Map<string, CatalogFilingFields>();
    for (const d of res.docs) {
      const doc = d as estypes.GetGetResult<{ record: CatalogFilingFields }>;
      if (doc.found && doc._source) out.set(doc._id, doc._source.record);
    }
    return out;
  }

  /** The matched files of the page's filings, best page first: collapse on fileId. */
  private async matches(text: TextQuery | null, ids: string[]): Promise<Map<string, SearchHit['matches']>> {
    const out = new Map<string, SearchHit['matches']>();
    if (!isTextual(text) || !ids.length) return out;
    const res = await this.client.search({
      index: this.alias,
      query: pageQuery(text, ids),
      collapse: { field: 'fileId' },
      sort: BY_SCORE_THEN_FILE,
      size: Math.min(10_000, ids.length * FILES_PER_FILING),
      stored_fields: ['_none_'],
      docvalue_fields: ['filingId', 'fileId', 'fileName.raw', 'versionId'],
      track_total_hits: false,
    });
    const one = (h: estypes.SearchHit, f: string) => ((h.fields?.[f] as string[] | undefined) ?? [null])[0];
    for (const h of res.hits.hits) {
      const filingId = one(h, 'filingId')!;
      const list = out.get(filingId) ?? [];
      if (list.length < FILES_PER_FILING) list.push({ fileId: one(h, 'fileId')!, versionId: one(h, 'versionId'), name: one(h, 'fileName.raw') ?? '' });
      out.set(filingId, list);
    }
    return out;
  }

  async search(q: SearchQuery): Promise<SearchPage> {
    const text = await this.textOf(q);
    const ranked = await this.rank(q, text);
    const n = ranked.length;
    const window = ranked.slice(0, q.window);
    const page = this.order(window, q.sort).slice(q.offset, q.offset + q.limit);
    const ids = page.map((c) => c.filingId);
    const [records, matches] = await Promise.all([this.records(ids), this.matches(text, ids)]);
    return {
      hits: page.filter((c) => records.has(c.filingId)).map((c) => ({ filing: records.get(c.filingId)!, score: c.score, matches: matches.get(c.filingId) ?? [] })),
      candidates: Math.min(n, q.window),
      exhaustive: n <= q.window,
    };
  }

  /**
   * Up to `perFile` passages per file from its best pages: pass k collapses on fileId and
   * highlights each file's best page not taken by an earlier pass, so the cost is `perFile`
   * requests whatever the number of files (inner_hits would run one search per file).
   */
  async passages(q: SearchQuery, matches: MatchRef[], perFile: number): Promise<Map<string, Passage[]>> {
    const out = new Map<string, Passage[]>();
    const text = await this.textOf(q);
    if (!matches.length || !isTextual(text)) return out;
    const fileIds = [...new Set(matches.map((m) => m.fileId))];
    const filingIds = [...new Set(matches.map((m) => m.filingId))];
    const taken: string[] = [];
    for (let pass = 0; pass < perFile; pass++) {
      const base = pageQuery({ ...text, intent: null }, filingIds, fileIds, false);
      const query: estypes.QueryDslQueryContainer = taken.length ? { bool: { must: [base], must_not: [{ ids: { values: taken } }] } } : base;
      const res = await this.client.search<{ fileId: string; page: number | null }>({
        index: this.alias,
        query,
        collapse: { field: 'fileId' },
        sort: BY_SCORE_THEN_PAGE,
        size: fileIds.length,
        _source: ['fileId', 'page'],
        track_total_hits: false,
        highlight: {
          highlight_query: highlightQuery(text),
          fields: { body: { type: 'unified', fragment_size: 160, number_of_fragments: 2, no_match_size: 160 } },
          pre_tags: [''],
          post_tags: [''],
        },
      });
      if (!res.hits.hits.length) break;
      for (const h of res.hits.hits) {
        taken.push(h._id!);
        const s = h._source!;
        const fragments = h.highlight?.body ?? [];
        if (!fragments.length) continue;
        const list = out.get(s.fileId) ?? [];
        list.push({ text: fragments.join(' … ').replace(/\s+/g, ' ').trim(), pageStart: s.page ?? null, pageEnd: s.page ?? null });
        out.set(s.fileId, list);
      }
    }
    return out;
  }
}

