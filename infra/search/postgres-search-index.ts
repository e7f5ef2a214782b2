import type { Knex } from 'knex';
import type { CatalogFilingFields } from '../../src/domain/events/catalog';
import { queryPreparedSql, runStatement } from '../postgres/prepared';
import { join, raw, sql, type Sql } from '../postgres/sql';
import { dropNotNull } from '../postgres/drop-not-null';
import { passageText } from './elasticsearch/passage-text';
import { assertWithinSearchBounds } from '../../src/ports/search-bounds';
import type { IndexFilter, IndexWriteContext, IndexedFiling, MatchRef, Passage, SearchHit, SearchIndex, SearchPage, SearchQuery, SortKey } from '../../src/ports/search-index';

/** The text search configuration: English stemming and stop words (filings are in English). */
const CONFIG = 'english';
/** Segment size of a page row: far below tsvector's 1 MB limit, and small enough for ts_headline. */
const SEGMENT_CHARS = 20_000;
const INSERT_BATCH = 500;
/** Request texts whose tsqueries are kept (a search and its passages, and every later page, need the same ones). */
const TSQUERIES_CACHED = 1_000;
/** ts_rank / ts_rank_cd normalization 1|32: divide by 1 + log(length), then scale into [0, 1). */
const NORM = 33;
/** Weight of the intent's terms: a secondary signal, below one keyword hit. */
const INTENT_WEIGHT = 0.3;
/** Weight of a match in the filing's metadata (company, product, type, description) relative to a document match. */
const META_WEIGHT = 0.5;
/**
 * Bounded work per search: at most this many filings per tier are scored, whatever the corpus size,
 * so a query of words common across the corpus costs the same at 20,000 or 100,000 filings: five
 * times the candidate window (500 for the window of 100 with passages), at most the large window
 * plus one (enough to fill it and to know that more matched; scoring is most of a common query's cost).
 */
const FILING_CAP = 1_201;
const capFor = (window: number) => Math.min(FILING_CAP, window * 5);
/**
 * Occurrences of a word kept per filing in the summary vector: enough for a term-frequency signal
 * that saturates, small enough that scoring a filing reads a few kilobytes.
 */
const SUMMARY_OCCURRENCES = 4;
/**
 * Rows up to this size stay in the heap uncompressed (Postgres' default compresses past 2 kB): a search
 * reads the summary of every candidate, and decompressing it cost more than the scoring itself.
 */
export const ROW_TARGET = 8160;
/**
 * The length ts_rank's normalization 1 divides by (every lexeme's occurrences, at least 1 each), stored
 * with the summary so ranking need not walk the whole vector per candidate.
 */
export const SUMMARY_LENGTH_SQL = (v: string) => `(select coalesce(sum(greatest(cardinality(u.positions), 1)), 0)::int from unnest(${v}) u)`;
/**
 * The summary index is split into SLICES partial GIN indexes by a hash of the filing id, scanned one after
 * the other until a tier has its candidates: a bitmap scan cannot stop early, and for words most filings hold
 * (rate, loss, change) building the bitmap of every match cost more than the rest of the search; one slice
 * holds enough of them. Rare words read every slice, each small.
 */
export const SLICES = 8;
export const sliceOf = (idColumn: string) => `(get_byte(uuid_send(${idColumn}), 15) & ${SLICES - 1})`;
/**
 * Filter marks: lexemes added to a filing's summary for the filters most searches carry (its state, and
 * whether dataScope `recent` holds it), so the summary index applies them in the same scan as the words and
 * only filings that pass are read from the heap. With the filter as a column condition beside the index,
 * a common word under a one-state filter read five to ten rows for every candidate kept. A mark holds a space,
 * which no lexeme parsed from text can (the parser splits at spaces), and carries no position: it never
 * matches a keyword and adds nothing to a rank (doc_len is the length without the marks).
 */
const STATE_MARK = 'state ';
const RECENT_MARK = 'scope recent';
/** The marks of the row `f` as a tsvector; dataScope `recent` is `submission_date >= RECENT_FROM` or no date. */
export const FILTER_MARKS_SQL = (f: string) =>
  `array_to_tsvector(array_remove(array['${STATE_MARK}' || ${f}.state, case when coalesce(${f}.submission_date, 'infinity') >= '${RECENT_FROM}' then '${RECENT_MARK}' end], null))`;
/** A lexeme in tsquery text form. */
const lexeme = (x: string) => `'${x.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`;

/** Past this many characters of text a filing's summary keeps one occurrence per word (a tsvector value is limited to 1 MB). */
const SUMMARY_WIDE_CHARS = 500_000;

interface Row {
  filing_id: string;
  score: number;
  record: CatalogFilingFields;
  matches: SearchHit['matches'] | null;
  n: number;
  capped: boolean;
}
/** dataScope `recent` starts here (shared with the Elasticsearch adapter). */
export const RECENT_FROM = '2018-01-01';

/** The catalog filing record of the spec, in its field order; `description` is not part of search results. */
const RECORD_FIELDS: (keyof CatalogFilingFields)[] = [
  'id', 'source', 'sourceReference', 'state', 'companyName', 'naicCompanyCodes', 'naicGroupCode', 'carrierIds', 'groupId', 'productName',
  'typeOfInsurance', 'subTypeOfInsurance', 'toiCode', 'subToiCode', 'filingType', 'sourceStatus', 'submissionDate', 'dispositionDate',
  'businessType', 'normalizedOutcome', 'filingTypeNormalized', 'stateStatusChangedDate',
];

export function recordOf(f: CatalogFilingFields): Omit<CatalogFilingFields, 'description'> {
  const out: Record<string, unknown> = {};
  for (const k of RECORD_FIELDS) out[k] = f[k] ?? null;
  return out as Omit<CatalogFilingFields, 'description'>;
}

/** Postgres rejects NUL in text; long pages become several rows with the same page number (Elasticsearch: several documents). */
export function segments(text: string): string[] {
  const clean = text.replaceAll('\u0000', ' ');
  if (clean.length <= SEGMENT_CHARS) return [clean];
  const out: string[] = [];
  let i = 0;
  while (i < clean.length) {
    let end = Math.min(clean.length, i + SEGMENT_CHARS);
    if (end < clean.length) {
      const space = clean.lastIndexOf(' ', end);
      if (space > i + SEGMENT_CHARS / 2) end = space;
    }
    out.push(clean.slice(i, end));
    i = end;
  }
  return out;
}

const COLUMN: Record<string, string> = {
  state: 'f.state',
  toiCode: 'f.toi_code',
  subToiCode: 'f.sub_toi_code',
  normalizedOutcome: 'f.normalized_outcome',
  filingTypeNormalized: 'f.filing_type_normalized',
  source: 'f.source',
  companyName: 'f.company_name',
  productName: 'f.product_name',
  carrierIds: 'f.carrier_ids',
  naicCompanyCodes: 'f.naic_company_codes',
  submissionDate: 'f.submission_date',
  dispositionDate: 'f.disposition_date',
  stateStatusChangedDate: 'f.state_status_changed_date',
};

/**
 * A parallel-unsafe function (harmless, evaluated once per returned row) keeps the whole statement off
 * parallel plans. The generic plan of the prepared statement otherwise ran the slices as a Parallel Append:
 * two worker processes per search on a 2-core machine, every slice scanned instead of the first ones, and
 * candidates in whatever order the workers delivered them.
 */
const SERIAL_ONLY = 'current_schema() as serial_only';

const lit = raw;

/** The tsqueries of a request (as text): AND and OR of the keywords, each phrase (positional, and as the AND of its words), the intent's OR. */
interface TsQueries {
  and: string | null;
  or: string | null;
  phrases: string[];
  phraseWords: string[];
  intent: string | null;
}

/** Columns a candidate carries: what sorting the window needs, without reading the record. */
const SORT_COLUMNS = 'f.filing_id, f.submission_date, f.disposition_date, f.state_status_changed_date, f.company_name, f.state';
/** The candidate column each sort field orders by. */
const SORT_COLUMN: Record<SortKey['field'], string> = {
  relevance: 'score',
  submissionDate: 'submission_date',
  dispositionDate: 'disposition_date',
  stateStatusChangedDate: 'state_status_changed_date',
  companyName: 'company_name',
  state: 'state',
};
/** The sort keys before the first relevance key: what orders the window without any score. */
const leadingMetadataKeys = (sort: SortKey[]): SortKey[] => {
  const i = sort.findIndex((k) => k.field === 'relevance');
  return i < 0 ? sort : sort.slice(0, i);
};
/**
 * Whether the sort, not the scores, decides the window: a metadata sort comes first and the tier cap is
 * the window plus one (the large window), so scoring could change the window's filings by one at most.
 */
const sortDecidesWindow = (q: SearchQuery): boolean => leadingMetadataKeys(q.sort).length > 0 && capFor(q.window) === q.window + 1;

/** A filter the filter marks apply exactly (the state mark is the row's state column, both upper case). */
const isMarked = (f: IndexFilter): boolean => f.kind === 'in' && f.field === 'state';

/**
 * The filter marks a text query's summary match must also hold: the index applies these filters with the
 * words. The state filter is then left out of the conditions (`isMarked`); dataScope stays as a condition too.
 */
function filterMarks(q: SearchQuery): string[] {
  const out: string[] = [];
  if (q.dataScope === 'recent') out.push(lexeme(RECENT_MARK));
  if (q.dataScope === 'historical') out.push(`!${lexeme(RECENT_MARK)}`);
  for (const f of q.filters) if (isMarked(f) && f.kind === 'in') out.push(f.values.map((v) => lexeme(STATE_MARK + v.toUpperCase())).join(' | '));
  return out;
}

/** The pieces of a text query's tiers that both ways of cutting the window share. */
interface Tiers {
  /** The raw ranks of a summary row `f`: rk, ri, len, meta. */
  ranks: Sql;
  /** A candidate's sort columns and raw ranks. */
  scoredCols: Sql;
  orTier: boolean;
  cap: Sql;
  sliced(cols: Sql, cond: Sql): Sql;
  andCond: Sql;
  orCond: Sql;
  inOnePage: Sql;
}

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
    await trx.raw(`
      create table ${t('search_filings')} (
        filing_id uuid primary key, stream_version int not null, source text not null, source_reference text not null,
        reference_key text not null, state text not null, company_name text, product_name text not null,
        naic_company_codes text[], carrier_ids text[], group_id text, toi_code text, sub_toi_code text,
        normalized_outcome text not null, filing_type_normalized text not null,
        submission_date date, disposition_date date, state_status_changed_date date,
        meta_text text not null, record jsonb not null,
        meta_tsv tsvector generated always as (to_tsvector('${CONFIG}', meta_text)) stored,
        doc_tsv tsvector not null default '', doc_len int not null default 0)
        with (toast_tuple_target = ${ROW_TARGET});
      -- Scoring reads the summary of every candidate: kept in the row, not in TOAST (no chunk look-ups), and
      -- uncompressed up to ROW_TARGET (pglz decompression cost more per candidate than all the scoring).
      alter table ${t('search_filings')} alter column doc_tsv set storage main;
      -- Searches are many and short (8 clients on 2 cores): parallel workers only add start-up cost.
      alter table ${t('search_filings')} set (parallel_workers = 0);
      ${Array.from({ length: SLICES }, (_, k) => `create index on ${t('search_filings')} using gin (doc_tsv) where ${sliceOf('filing_id')} = ${k};`).join('\n      ')}
      -- Without statistics on the slice expression the planner takes a slice for 1/200 of the filings and
      -- plans every tier as if common words were rare.
      create statistics on (${sliceOf('filing_id')}) from ${t('search_filings')};
      create index on ${t('search_filings')} (reference_key text_pattern_ops);
      create index on ${t('search_filings')} (submission_date);
      create index on ${t('search_filings')} (state);
      create table ${t('search_pages')} (
        filing_id uuid not null, file_id uuid not null, file_name text not null, version_id text, text_revision text not null,
        page_start int, page_end int, segment int not null, body text not null,
        tsv tsvector generated always as (setweight(to_tsvector('${CONFIG}', file_name), 'B') || to_tsvector('${CONFIG}', body)) stored)
        with (toast_tuple_target = ${ROW_TARGET});
      -- Matches and passages read the text and vector of the returned filings' pages: in the row, uncompressed.
      alter table ${t('search_pages')} alter column tsv set storage main, alter column body set storage main;
      create index on ${t('search_pages')} (filing_id, file_id);
    `);
  }

  /**
   * company_name is null for a filing whose source names no company: a sort key of the window (`nulls last` both
   * ways), which no companyName filter matches. Tables created before were NOT NULL; dropping that is a catalog
   * change only, so the index is not built again.
   */
  async upgradeSchema(trx: Knex.Transaction, t: (logical: string) => string): Promise<void> {
    await dropNotNull(trx, t('search_filings'), 'company_name');
  }

  async upsert({ trx, table: t }: IndexWriteContext, filings: IndexedFiling[]): Promise<void> {
    // The last version of each filing in the batch is all that matters.
    const latest = new Map<string, IndexedFiling>();
    for (const f of filings) if ((latest.get(f.filing.id)?.version ?? -1) < f.version) latest.set(f.filing.id, f);
    // One statement for the batch (one round trip per filing was most of the projector's time on import):
    // the rows travel as one JSON array read as the table's own row type, so arrays and dates convert as columns.
    const byId = new Map<string, IndexedFiling>();
    const filingRows = [...latest.values()].map((x) => {
      const f = x.filing;
      byId.set(f.id, x);
      const meta = [f.companyName, f.productName, f.typeOfInsurance, f.subTypeOfInsurance, f.filingType, f.description ?? ''].join(' \n ');
      return {
        filing_id: f.id, stream_version: x.version, source: f.source, source_reference: f.sourceReference, state: f.state,
        // A missing product name (null in the record) is '' in its filter column, which no productName filter (1+ characters) matches.
        company_name: f.companyName, product_name: f.productName ?? '', naic_company_codes: f.naicCompanyCodes, carrier_ids: f.carrierIds,
        group_id: f.groupId, toi_code: f.toiCode, sub_toi_code: f.subToiCode, normalized_outcome: f.normalizedOutcome,
        filing_type_normalized: f.filingTypeNormalized, submission_date: f.submissionDate, disposition_date: f.dispositionDate,
        state_status_changed_date: f.stateStatusChangedDate, meta_text: meta.replaceAll('\u0000', ' '), record: recordOf(f),
      };
    });
    const res = await trx.raw(
      `insert into ${t('search_filings')} (filing_id, stream_version, source, source_reference, reference_key, state, company_name, product_name,
         naic_company_codes, carrier_ids, group_id, toi_code, sub_toi_code, normalized_outcome, filing_type_normalized,
         submission_date, disposition_date, state_status_changed_date, meta_text, record)
       select filing_id, stream_version, source, source_reference, upper(source_reference), upper(state), company_name, product_name,
         naic_company_codes, carrier_ids, group_id, toi_code, sub_toi_code, normalized_outcome, filing_type_normalized,
         submission_date, disposition_date, state_status_changed_date, meta_text, record
       from json_populate_recordset(null::${t('search_filings')}, ?::json)
       on conflict (filing_id) do update set stream_version = excluded.stream_version, source = excluded.source, source_reference = excluded.source_reference,
         reference_key = excluded.reference_key, state = excluded.state, company_name = excluded.company_name, product_name = excluded.product_name,
         naic_company_codes = excluded.naic_company_codes, carrier_ids = excluded.carrier_ids, group_id = excluded.group_id, toi_code = excluded.toi_code,
         sub_toi_code = excluded.sub_toi_code, normalized_outcome = excluded.normalized_outcome, filing_type_normalized = excluded.filing_type_normalized,
         submission_date = excluded.submission_date, disposition_date = excluded.disposition_date, state_status_changed_date = excluded.state_status_changed_date,
         meta_text = excluded.meta_text, record = excluded.record
       where ${t('search_filings')}.stream_version < excluded.stream_version
       returning filing_id`,
      [JSON.stringify(filingRows)],
    );
    const changed: IndexedFiling[] = (res.rows as { filing_id: string }[]).map((r) => byId.get(r.filing_id)!);
    if (!changed.length) return;
    const ids = changed.map((x) => x.filing.id);
    await trx(t('search_pages')).whereIn('filing_id', ids).delete();
    let rows: Record<string, unknown>[] = [];
    const flush = async () => {
      if (rows.length) await trx(t('search_pages')).insert(rows);
      rows = [];
    };
    for (const x of changed) {
      for (const d of x.documents) {
        for (const p of d.pages) {
          const segs = segments(p.text);
          for (let s = 0; s < segs.length; s++) {
            rows.push({ filing_id: x.filing.id, file_id: d.fileId, file_name: d.name, version_id: d.versionId, text_revision: d.textRevision, page_start: p.page, page_end: p.page, segment: s, body: segs[s] });
            if (rows.length >= INSERT_BATCH) await flush();
          }
        }
      }
    }
    await flush();
    const wide = changed.filter((x) => x.documents.reduce((n, d) => n + d.pages.reduce((m, p) => m + p.text.length, 0), 0) > SUMMARY_WIDE_CHARS);
    await summarize(trx, t, ids, wide.map((x) => x.filing.id));
  }

  async remove({ trx, table: t }: IndexWriteContext, filingIds: string[]): Promise<void> {
    await trx(t('search_pages')).whereIn('filing_id', filingIds).delete();
    await trx(t('search_filings')).whereIn('filing_id', filingIds).delete();
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

/**
 * Rebuilds the summary vector of the given filings from their metadata (weight A) and pages (file
 * names B, text D): every word once, its strongest weight on the first of up to SUMMARY_OCCURRENCES
 * occurrences. Positions are ordinals, not places in the text: the summary serves selection and
 * ts_rank (word frequency and weight), never phrases or cover density, which the page rows answer.
 * `wide` filings (very long texts) keep one occurrence per word.
 */
export async function summarize(trx: Knex.Transaction | Knex, t: (logical: string) => string, filingIds: string[], wide: string[] = []): Promise<void> {
  if (!filingIds.length) return;
  const more = Array.from({ length: SUMMARY_OCCURRENCES }, (_, k) => `'${Array.from({ length: k }, (_, i) => `,${i + 2}`).join('')}'`).join(', ');
  // A page vector lists a word's positions in order, the file name's (B) first, so weights[1] is its strongest.
  // tsvector text form: 'lexeme':1A,2,3 with quotes doubled and backslashes escaped (chr(39) = ', chr(92) = \).
  await trx.raw(
    `with occ as (
       select f.filing_id, u.lexeme, 'A' as w, 1 as n from ${t('search_filings')} f, unnest(f.meta_tsv) u where f.filing_id = any(?::uuid[])
       union all
       select p.filing_id, u.lexeme, u.weights[1], cardinality(u.positions) from ${t('search_pages')} p, unnest(p.tsv) u where p.filing_id = any(?::uuid[])),
     lex as (
       select filing_id, lexeme, min(w) as w, least(sum(n), case when filing_id = any(?::uuid[]) then 1 else ${SUMMARY_OCCURRENCES} end)::int as k
       from occ group by filing_id, lexeme),
     sv as (
       select filing_id, string_agg(
           chr(39) || replace(replace(lexeme, chr(92), chr(92) || chr(92)), chr(39), chr(39) || chr(39)) || chr(39) || ':1' || w || (array[${more}])[k],
           ' ')::tsvector as v
       from lex group by filing_id)
     update ${t('search_filings')} f set doc_tsv = coalesce(sv.v, '') || ${FILTER_MARKS_SQL('f')}, doc_len = coalesce(${SUMMARY_LENGTH_SQL('sv.v')}, 0) from unnest(?::uuid[]) as i(id) left join sv on sv.filing_id = i.id
     where f.filing_id = i.id`,
    [filingIds, filingIds, wide, filingIds],
  );
}
