import type { Knex } from 'knex';
import type { CatalogFilingFields } from '../../src/domain/events/catalog';
import { queryPreparedSql, runStatement } from '../postgres/prepared';
import { join, sql, type Sql } from '../postgres/sql';
import { dropNotNull } from '../postgres/drop-not-null';
import { passageText } from './elasticsearch/passage-text';
import { assertWithinSearchBounds } from '../../src/ports/search-bounds';
import type { IndexFilter, IndexWriteContext, IndexedFiling, MatchRef, Passage, SearchIndex, SearchPage, SearchQuery, SortKey } from '../../src/ports/search-index';
import { COLUMN, CONFIG, INTENT_WEIGHT, META_WEIGHT, NORM, RECENT_FROM, Row, SERIAL_ONLY, SLICES, SORT_COLUMN, SORT_COLUMNS, TSQUERIES_CACHED, Tiers, TsQueries, capFor, filterMarks, isMarked, leadingMetadataKeys, lit, recordOf, sliceOf, sortDecidesWindow } from './postgres-search-sql';
import { createSearchSchema, removeIndexed, upsertIndexed } from './postgres-search-writes';

export { FILTER_MARKS_SQL, RECENT_FROM, ROW_TARGET, SLICES, SUMMARY_LENGTH_SQL, recordOf, segments, sliceOf } from './postgres-search-sql';
export { summarize } from './postgres-search-writes';

/**
 * SearchIndex on Postgres full-text search.
 *
 * Two levels: `search_filings` holds each filing's metadata (filters, sorting, the record) and a
 * summary tsvector of everything indexed for it (metadata at weight A, file names B, page text D;
 * at most SUMMARY_OCCURRENCES occurrences per word) under a GIN index in SLICES parts: candidates are selected and
 * scored there, one row per filing, at most five times the window (≤ 1,201) per tier. `search_pages` holds one row per page
 * (or page segment) with its own tsvector, read by filing id only for the returned page of results:
 * which files matched (best first), phrases that must occur in one page, and the text passages are cut from.
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly tables = ['search_filings', 'search_pages'];
  /**
   * 1: the filing summary vector (projector version 2); 2: rows uncompressed up to ROW_TARGET and the
   * summary's length stored (doc_len); 3: the summary index in SLICES partial indexes; 4: filter marks in the
   * summary. The projection rebuilds into the new tables.
   */
  readonly schemaVersion = 4;

  /** The tsqueries of recent request texts: parsing is deterministic for the configuration, and a round trip saved per search. */
  private readonly parsed = new Map<string, TsQueries>();

  constructor(private readonly knex: Knex) {}

  async createSchema(trx: Knex.Transaction, t: (logical: string) => string): Promise<void> {
    return createSearchSchema(trx, t);
  }

  /**
   * company_name is null for a filing whose source names no company: a sort key of the window (`nulls last` both
   * ways), which no companyName filter matches. Tables created before were NOT NULL; dropping that is a catalog
   * change only, so the index is not built again.
   */
  async upgradeSchema(trx: Knex.Transaction, t: (logical: string) => string): Promise<void> {
    await dropNotNull(trx, t('search_filings'), 'company_name');
  }

  async upsert(ctx: IndexWriteContext, filings: IndexedFiling[]): Promise<void> {
    return upsertIndexed(ctx, filings);
  }

  async remove(ctx: IndexWriteContext, filingIds: string[]): Promise<void> {
    return removeIndexed(ctx, filingIds);
  }

  /**
   * The filters as conditions on `f`. `marked`: leave out those the tsquery's filter marks already apply
   * (a text query's): with `state = any($n)` in the statement, Postgres found custom plans (planned anew on every
   * run, 8-15 ms of planning) cheaper than the generic one for a state-filtered query.
   */
  private filterSql(q: SearchQuery, marked = false): Sql {
    const parts: Sql[] = [lit('true')];
    // Written so that the date index is not used: most filings are recent, and a bitmap of them cost more than the text match.
    if (q.dataScope === 'recent') parts.push(lit(`coalesce(f.submission_date, 'infinity') >= '${RECENT_FROM}'`));
    if (q.dataScope === 'historical') parts.push(lit(`f.submission_date < '${RECENT_FROM}'`));
    if (q.excludedSources.length) parts.push(sql`f.source <> all(${q.excludedSources}::text[])`);
    for (const flt of q.filters) if (!(marked && isMarked(flt))) parts.push(...this.filterPart(flt));
    if (q.reference) {
      const value = q.reference.value.replace(/[%_\\]/g, '');
      parts.push(q.reference.mode === 'exact' ? sql`(f.source = ${q.reference.source} and f.reference_key = upper(${value}))` : sql`(f.source = ${q.reference.source} and f.reference_key like upper(${value}) || '%')`);
    }
    return join(parts, ' and ');
  }

  private filterPart(flt: IndexFilter): Sql[] {
    const col = (field: string) => lit(COLUMN[field]);
    switch (flt.kind) {
      case 'in':
        return [sql`${col(flt.field)} = any(${flt.field === 'state' ? flt.values.map((v) => v.toUpperCase()) : flt.values}::text[])`];
      case 'group':
        // The NAIC group code is read from the row's record (jsonb, in the row uncompressed): a column of its own
        // would have changed the index schema and rebuilt every kept index for a filter checked only on rows the
        // text match or the filter-only order reads anyway, as group_id was.
        return [sql`(f.record->>'naicGroupCode' = any(${flt.naicGroupCodes}::text[]) or f.naic_company_codes && ${flt.naicCompanyCodes}::text[])`];
      case 'contains':
        return [sql`strpos(lower(${col(flt.field)}), lower(${flt.value})) > 0`];
      case 'arrayAny':
        // Exclusion also drops filings whose codes are unknown (null or empty), as the GET list does.
        return [flt.negate ? sql`(cardinality(${col(flt.field)}) > 0 and not (${col(flt.field)} && ${flt.values}::text[]))` : sql`${col(flt.field)} && ${flt.values}::text[]`];
      case 'date': {
        const out: Sql[] = [];
        if (flt.from) out.push(sql`${col(flt.field)} >= ${flt.from}::date`);
        if (flt.to) out.push(sql`${col(flt.field)} <= ${flt.to}::date`);
        if (!flt.from && !flt.to) out.push(sql`${col(flt.field)} is not null`);
        return out;
      }
      case 'reference':
        return [sql`(${join(flt.refs.map((r) => sql`(f.source = ${r.source} and f.reference_key = upper(${r.reference}))`), ' or ')})`];
    }
  }

  /** The tsqueries of a request, computed once (one round trip) and kept for the next requests with the same texts. */
  private async tsqueries(q: SearchQuery): Promise<TsQueries> {
    const key = JSON.stringify([q.keywords, q.intent ?? '', q.phrases]);
    const hit = this.parsed.get(key);
    if (hit) return hit;
    const [r] = await runStatement<{ a: string; i: string; p: string[]; w: string[] }>(
      this.knex,
      {
        text: `select plainto_tsquery('${CONFIG}', $1)::text as a, plainto_tsquery('${CONFIG}', $2)::text as i,
         array(select phraseto_tsquery('${CONFIG}', x)::text from unnest($3::text[]) x) as p,
         array(select plainto_tsquery('${CONFIG}', x)::text from unnest($3::text[]) x) as w`,
        values: [q.keywords, q.intent ?? '', q.phrases],
      },
      q.signal,
    );
    const or = (s: string) => (s ? s.replace(/ & /g, ' | ') : null);
    const phrases = (r.p ?? []).filter(Boolean);
    const parsed = { and: r.a || null, or: or(r.a), phrases, phraseWords: (r.w ?? []).filter(Boolean), intent: or(r.i) };
    if (this.parsed.size >= TSQUERIES_CACHED) this.parsed.delete(this.parsed.keys().next().value!);
    this.parsed.set(key, parsed);
    return parsed;
  }

  /** ORDER BY of the window's sort, on the candidate columns; ties by relevance, then filing id. */
  private orderSql(sort: SortKey[]): string {
    return [...sort.map((k) => `${SORT_COLUMN[k.field]} ${k.direction} nulls last`), 'score desc', 'filing_id asc'].join(', ');
  }

  async search(q: SearchQuery): Promise<SearchPage> {
    assertWithinSearchBounds(q);
    if (q.reference) return this.filterOnly(q, this.filterSql(q));
    const ts = await this.tsqueries(q);
    if (!(ts.or || ts.phrases.length)) return this.filterOnly(q, this.filterSql(q));
    // A text query's filter marks apply some filters in the index (see filterSql's `marked`).
    return this.textual(q, this.filterSql(q, true), ts);
  }

  /** A tracking-number query or a query without searchable words: the filters select, newest first. */
  private filterOnly(q: SearchQuery, filter: Sql): Promise<SearchPage> {
    const candidates = sql`
      c as materialized (select ${lit(SORT_COLUMNS)}, 0::float8 as score from search_filings f where ${filter}
        order by f.submission_date desc nulls last, f.filing_id limit ${q.window + 1}),
      st as (select (select count(*) from c)::int as n, false as capped),
      w as (select * from c order by submission_date desc nulls last, filing_id limit ${q.window})`;
    return this.run(q, candidates, null);
  }

  /**
   * The candidate window of a text query, with bounded work. Tier 1 (AND): filings whose summary
   * holds every keyword (and the words of every honoured phrase, which must also occur in one page);
   * tier 2 (OR), only when tier 1 leaves the window short and was not capped: filings holding any keyword. Each tier
   * scores at most capFor(window) filings, the first the GIN index yields; a capped tier makes the result
   * non-exhaustive. Score: ts_rank of the summary for the OR of the keywords, plus 1 in tier 1, plus
   * the intent's rank at INTENT_WEIGHT, plus META_WEIGHT times the metadata's own match.
   */
  private textual(q: SearchQuery, filter: Sql, ts: TsQueries): Promise<SearchPage> {
    const tsq = (x: string) => sql`${x}::tsquery`;
    const all = (xs: string[]) => xs.map((x) => `(${x})`).join(' & ');
    const marks = filterMarks(q);
    const andWords = all([...(ts.and ? [ts.and] : []), ...ts.phraseWords, ...marks]);
    const orWords = all([...(ts.or ? [ts.or] : []), ...ts.phraseWords, ...marks]);
    const rankQ = ts.or ?? ts.phraseWords.map((x) => `(${x})`).join(' | ').replace(/ & /g, ' | ');
    // A phrase must occur within one page: checked on the pages of a candidate whose summary holds its words,
    // in score order and only until the window is full (a common phrase costs window + 1 checks, not one per candidate).
    // The phrases travel as one array: one subquery for any number of them, so planning does not grow with the
    // phrase count (an `exists` per phrase made 100 phrases take 10 s and 2 GB of one backend to plan) and one
    // prepared statement serves every count.
    const inOnePage = ts.phrases.length
      ? sql` and not exists (select 1 from unnest(${ts.phrases}::tsquery[]) ph(q)
               where not exists (select 1 from search_pages p where p.filing_id = x.filing_id and p.tsv @@ ph.q))`
      : lit('');
    // A candidate row carries its raw ranks, computed in the scan that finds it (the summary is read in
    // place, never copied): ts_rank without normalization, then normalization 1|32 from the stored length,
    // r / log2(length + 1) / (1 + r / log2(length + 1)) = r / (r + log2(length + 1)), as ts_rank(..., 33) would compute it
    // by walking the whole vector once per call.
    const intentRank = ts.intent ? sql`ts_rank(f.doc_tsv, ${tsq(ts.intent)}, 0)` : lit('0::real');
    // Most candidates hold no keyword in their metadata: the cheap `@@` spares them ts_rank_cd (0 for them anyway).
    const meta = ts.or
      ? sql`case when f.meta_tsv @@ ${tsq(ts.or)}
              then ${lit(META_WEIGHT)} * (ts_rank_cd(f.meta_tsv, ${tsq(ts.or)}, ${lit(NORM)}) + (case when f.meta_tsv @@ ${tsq(ts.and ?? ts.or)} then 1 else 0 end))
              else 0 end`
      : lit('0');
    const ranks = sql`ts_rank(f.doc_tsv, ${tsq(rankQ)}, 0) as rk, ${intentRank} as ri, ln(greatest(f.doc_len, 1) + 1::float8) / ln(2::float8) as len, ${meta} as meta`;
    const orTier = ts.or !== null && ts.or !== ts.and;
    const cap = lit(capFor(q.window));
    // Tier 2 leaves out tier 1's filings by id: testing `not (doc_tsv @@ and)` would read every summary.
    // The slices in order, each a partial index scan; `limit` stops before the next slice once a tier has its candidates.
    const sliced = (cols: Sql, cond: Sql) =>
      join(Array.from({ length: SLICES }, (_, k) => sql`(select ${cols} from search_filings f where ${lit(sliceOf('f.filing_id'))} = ${lit(k)} and ${cond})`), ' union all ');
    const andCond = sql`f.doc_tsv @@ ${tsq(andWords)} and ${filter}`;
    const orCond = sql`f.doc_tsv @@ ${tsq(orWords)} and f.filing_id not in (select a.filing_id from a) and ${filter}`;
    // Which files matched, for the returned filings only: pages holding any keyword (and every phrase), best page first.
    const pageSel = all([...(ts.or ? [ts.or] : []), ...ts.phrases]);
    const andBonus = ts.and ? sql` + (case when p.tsv @@ ${tsq(ts.and)} then 1 else 0 end)` : lit('');
    // ts_rank_cd allocates and walks its cover even for a page without the intent's words; `@@` rules those out first.
    const intentP = ts.intent
      ? sql` + (case when p.tsv @@ ${tsq(ts.intent)} then ${lit(INTENT_WEIGHT)} * ts_rank_cd(p.tsv, ${tsq(ts.intent)}, ${lit(NORM)}) else 0 end)`
      : lit('');
    const matches = sql`
      select jsonb_agg(jsonb_build_object('fileId', h.file_id, 'name', h.file_name, 'versionId', h.version_id) order by h.r desc, h.file_id) as matches
      from (select p.file_id, p.file_name, p.version_id, max(ts_rank_cd(p.tsv, ${tsq(rankQ)}, ${lit(NORM)})${andBonus}${intentP}) as r
            from search_pages p where p.filing_id = pg.filing_id and p.tsv @@ ${tsq(pageSel)} group by 1, 2, 3) h`;
    const tiers = { ranks, scoredCols: sql`${lit(SORT_COLUMNS)}, ${ranks}`, orTier, cap, sliced, andCond, orCond, inOnePage };
    return sortDecidesWindow(q) ? this.run(q, this.windowBySort(q, tiers), matches, true) : this.run(q, this.windowByScore(q, tiers), matches, false);
  }

  /**
   * Relevance first: every candidate is scored in the scan that finds it, and the window is the best `window`
   * of the tiers' candidates by score.
   */
  private windowByScore(q: SearchQuery, t: Tiers): Sql {
    return sql`
      a as materialized (select * from (${t.sliced(t.scoredCols, t.andCond)}) s limit ${t.cap}),
      sa as materialized (${this.bestOf(q, t, 'a', 1)}),
      ${this.orTier(q, t)},
      c as (select * from sa union all select * from so),
      st as (select (select count(*) from c)::int as n, ((select count(*) from a) >= ${t.cap} or (select count(*) from o) >= ${t.cap}) as capped),
      w as (select * from c order by score desc, filing_id limit ${q.window})`;
  }

  /** The best window + 1 of a tier's candidates (scored in the scan) that pass the phrase check (`offset 0` keeps the check after the sort). */
  private bestOf(q: SearchQuery, t: Tiers, from: string, bonus: number): Sql {
    const norm = (r: string) => `(c.${r} / (c.${r} + c.len))`;
    return sql`
      select * from (select c.filing_id, c.submission_date, c.disposition_date, c.state_status_changed_date, c.company_name, c.state,
                       ${lit(norm('rk'))} + ${lit(bonus)} + ${lit(INTENT_WEIGHT)} * ${lit(norm('ri'))} + c.meta as score
                     from ${lit(from)} c order by score desc, filing_id offset 0) x
      where true${t.inOnePage} limit ${q.window + 1}`;
  }

  /** Tier 2 (`o`, scored into `so`), only when tier 1 (`a`, `sa`) leaves the window short and was not capped. */
  private orTier(q: SearchQuery, t: Tiers): Sql {
    return sql`
      o as materialized (${
        t.orTier
          ? sql`select * from (${t.sliced(t.scoredCols, t.orCond)}) s
                where (select count(*) from a) < ${t.cap} and (select count(*) from sa) < ${q.window} limit ${t.cap}`
          : sql`select ${t.scoredCols} from search_filings f where false`
      }),
      so as materialized (${this.bestOf(q, t, 'o', 0)})`;
  }

  /**
   * A metadata sort over the large window, whose tier cap is the window plus one: scores could change which
   * of the AND tier's candidates form the window by one filing at most, so they are not computed to choose
   * them: the window holds the AND tier's first `window` candidates in index order, then the OR tier's first
   * ones, as many as there is room for (its best by score when a phrase is checked). The sort decides the page;
   * scores are computed, from the row found again by its ctid, only for the filings whose sort keys tie with
   * one of the page's (the order within a tie is by score, then filing id). Scoring every candidate of a
   * common-word query was a third of its database time.
   */
  private windowBySort(q: SearchQuery, t: Tiers): Sql {
    const cols = sql`${lit(SORT_COLUMNS)}, f.ctid as t`;
    const keys = leadingMetadataKeys(q.sort);
    const order = keys.map((k) => `${SORT_COLUMN[k.field]} ${k.direction} nulls last`).join(', ');
    const partition = keys.map((k) => SORT_COLUMN[k.field]).join(', ');
    const c = 'filing_id, submission_date, disposition_date, state_status_changed_date, company_name, state';
    // Without a phrase to check, the OR tier too takes its first candidates in index order, as many as the window
    // has room for plus one (to know that more matched), unscored; with one, it is scored in the scan as under relevance.
    const orByIndex = t.orTier && t.inOnePage.isEmpty;
    const orTier = orByIndex
      ? sql`
      o as materialized (select * from (${t.sliced(cols, t.orCond)}) s
                         where (select count(*) from a) < ${t.cap} and (select count(*) from sa) < ${q.window}
                         limit (${q.window + 1} - (select count(*) from sa))),
      so as (select o.*, null::float8 as score from o)`
      : this.orTier(q, t);
    return sql`
      a as materialized (select * from (${t.sliced(cols, t.andCond)}) s limit ${t.cap}),
      sa as materialized (select * from (select a.*, row_number() over () as seq from a offset 0) x where true${t.inOnePage} limit ${q.window + 1}),
      ${orTier},
      st as (select ((select count(*) from sa) + (select count(*) from so))::int as n,
               ((select count(*) from a) >= ${t.cap} or (select count(*) from o) >= ${t.cap}) as capped),
      w as ((select ${lit(c)}, t, 1 as bonus, null::float8 as score from sa order by seq limit ${q.window})
            union all (select ${lit(c)}, ${lit(orByIndex ? 't' : 'null::tid')}, 0, score from so order by score desc nulls last, filing_id
                       limit greatest(0, ${q.window} - (select count(*) from sa)))),
      g as (select w.*, rank() over (order by ${lit(order)}) - 1 as gs, count(*) over (partition by ${lit(partition)}) as gn from w),
      h as materialized (
        select ${lit(c)}, gs, coalesce(score, (select r.rk / (r.rk + r.len) + g.bonus + ${lit(INTENT_WEIGHT)} * (r.ri / (r.ri + r.len)) + r.meta
                                              from (select ${t.ranks} from search_filings f where f.ctid = g.t offset 0) r)) as score
        from g where g.gs < ${q.offset + q.limit} and g.gs + g.gn > ${q.offset}),
      pg as (select * from (select h.filing_id, h.score, (select min(gs) from h) + row_number() over (order by ${lit(this.orderSql(q.sort))}) - 1 as ord from h) y
             where y.ord >= ${q.offset} order by y.ord limit ${q.limit})`;
  }

  /**
   * One round trip: the candidates (`c`, scored into `s`), the window `w` cut from them, sorted,
   * the page `pg` cut from it (or already cut by the candidates, `pageCut`); records (and matches) are read for the page's filings only.
   * Always one row at least, so the counts arrive with an empty page too.
   */
  private async run(q: SearchQuery, candidates: Sql, matches: Sql | null, pageCut = false): Promise<SearchPage> {
    const page = pageCut
      ? lit('')
      : sql`,
      pg as (select w.filing_id, w.score, row_number() over (order by ${lit(this.orderSql(q.sort))}) as ord from w
             order by ord offset ${q.offset} limit ${q.limit})`;
    const query = sql`
      with ${candidates}${page}
      select st.n, st.capped, x.filing_id, x.score, x.record, x.matches, ${lit(SERIAL_ONLY)} from st left join lateral (
        select pg.filing_id, pg.score, pg.ord, f.record, ${matches ? lit('m.matches') : lit('null::jsonb as matches')}
        from pg join search_filings f on f.filing_id = pg.filing_id
        ${matches ? sql`left join lateral (${matches}) m on true` : lit('')}) x on true
      order by x.ord`;
    // Prepared per connection and statement shape: planning the sliced tiers cost more than running them,
    // and once Postgres finds the generic plan as good as the custom ones it plans no more.
    const rows = await queryPreparedSql<Row>(this.knex, query, q.signal);
    const n = rows[0]?.n ?? 0;
    const capped = rows[0]?.capped ?? false;
    return {
      hits: rows.filter((r) => r.filing_id).map((r) => ({ filing: { ...recordOf(r.record) } as CatalogFilingFields, score: Number(r.score), matches: r.matches ?? [] })),
      candidates: Math.min(n, q.window),
      exhaustive: n <= q.window && !capped,
    };
  }

  async passages(q: SearchQuery, matches: MatchRef[], perFile: number): Promise<Map<string, Passage[]>> {
    const out = new Map<string, Passage[]>();
    if (!matches.length || q.reference) return out;
    assertWithinSearchBounds(q);
    const ts = await this.tsqueries(q);
    const parts = [...(ts.or ? [ts.or] : []), ...ts.phrases];
    if (!parts.length) return out;
    const query = parts.map((p) => `(${p})`).join(' | ');
    // The passage is cut here from each best page's text (passageText, shared with the Elasticsearch adapter):
    // ts_headline parses and stems all the text it is given, which cost more than the rest of the search.
    const stems = [...new Set([...query.matchAll(/'((?:[^']|'')+)'/g)].map((m) => m[1].replaceAll("''", "'")))];
    const rows = await runStatement<{ file_id: string; page_start: number | null; page_end: number | null; body: string }>(
      this.knex,
      {
        text: `select y.file_id, y.page_start, y.page_end, y.body
       from (select p.file_id, p.page_start, p.page_end, p.body,
               row_number() over (partition by p.file_id order by ts_rank_cd(p.tsv, $1::tsquery, ${NORM}) desc, p.page_start, p.segment) as rn
             from search_pages p
             where p.filing_id = any($2::uuid[]) and p.file_id = any($3::uuid[]) and p.tsv @@ $1::tsquery) y
       where y.rn <= $4
       order by y.file_id, y.rn`,
        values: [query, [...new Set(matches.map((m) => m.filingId))], matches.map((m) => m.fileId), perFile],
      },
      q.signal,
    );
    for (const r of rows) {
      const text = passageText(r.body, stems);
      if (text === null) continue;
      const list = out.get(r.file_id) ?? [];
      list.push({ text, pageStart: r.page_start, pageEnd: r.page_end });
      out.set(r.file_id, list);
    }
    return out;
  }
}
