import type { Knex } from 'knex';
import type { CatalogFilingFields } from '../../commands/catalog/catalog-events';
import type { IndexFilter, IndexWriteContext, IndexedFiling, MatchRef, Passage, SearchHit, SearchIndex, SearchPage, SearchQuery, SortKey } from '../../src/ports/search-index';

/** The text search configuration: English stemming and stop words (filings are in English). */
const CONFIG = 'english';
/** Segment size of a page row: far below tsvector's 1 MB limit, and small enough for ts_headline. */
const SEGMENT_CHARS = 20_000;
const INSERT_BATCH = 500;
/** ts_rank_cd normalization 1|32: divide by 1 + log(length), then scale into [0, 1). */
const NORM = 33;
/** Weight of the intent's terms: a secondary signal, below one keyword hit. */
const INTENT_WEIGHT = 0.3;
/** Weight of a match in the filing's metadata (company, product, type, description) relative to a document match. */
const META_WEIGHT = 0.5;
/**
 * Bounded work per search: at most this many matching pages (metadata rows) are ranked per tier, so
 * a query of words common across the corpus costs the same at 20,000 or 100,000 filings.
 */
const PAGE_CAP = 2_000;
const META_CAP = 2_000;

interface Ranked {
  filing_id: string;
  score: number;
  matches: SearchHit['matches'] | null;
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
  groupId: 'f.group_id',
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
 * SearchIndex on Postgres full-text search: one row per page (or page segment) with a stored
 * tsvector under a GIN index, the filing's metadata in a row of its own for filters and sorting.
 * Ranking: ts_rank_cd over the OR of the keywords, plus 1 when a page holds all of them, plus the
 * intent's OR-rank at a smaller weight; a filing scores its best page, plus a little per extra
 * matching file, plus its metadata match. Passages come from ts_headline on the best pages.
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly tables = ['search_filings', 'search_pages'];

  constructor(private readonly knex: Knex) {}

  async createSchema(trx: Knex.Transaction, t: (logical: string) => string): Promise<void> {
    await trx.raw(`
      create table ${t('search_filings')} (
        filing_id uuid primary key, stream_version int not null, source text not null, source_reference text not null,
        reference_key text not null, state text not null, company_name text not null, product_name text not null,
        naic_company_codes text[], carrier_ids text[], group_id text, toi_code text, sub_toi_code text,
        normalized_outcome text not null, filing_type_normalized text not null,
        submission_date date, disposition_date date, state_status_changed_date date,
        meta_text text not null, record jsonb not null,
        meta_tsv tsvector generated always as (to_tsvector('${CONFIG}', meta_text)) stored);
      create index on ${t('search_filings')} using gin (meta_tsv);
      create index on ${t('search_filings')} (reference_key text_pattern_ops);
      create index on ${t('search_filings')} (submission_date);
      create index on ${t('search_filings')} (state);
      create table ${t('search_pages')} (
        filing_id uuid not null, file_id uuid not null, file_name text not null, version_id text, text_revision text not null,
        page_start int, page_end int, segment int not null, body text not null,
        tsv tsvector generated always as (setweight(to_tsvector('${CONFIG}', file_name), 'B') || to_tsvector('${CONFIG}', body)) stored);
      create index on ${t('search_pages')} using gin (tsv);
      create index on ${t('search_pages')} (filing_id, file_id);
    `);
  }

  async upsert({ trx, table: t }: IndexWriteContext, filings: IndexedFiling[]): Promise<void> {
    // The last version of each filing in the batch is all that matters.
    const latest = new Map<string, IndexedFiling>();
    for (const f of filings) if ((latest.get(f.filing.id)?.version ?? -1) < f.version) latest.set(f.filing.id, f);
    const changed: IndexedFiling[] = [];
    for (const x of latest.values()) {
      const f = x.filing;
      const meta = [f.companyName, f.productName, f.typeOfInsurance, f.subTypeOfInsurance, f.filingType, f.description ?? ''].join(' \n ');
      const res = await trx.raw(
        `insert into ${t('search_filings')} (filing_id, stream_version, source, source_reference, reference_key, state, company_name, product_name,
           naic_company_codes, carrier_ids, group_id, toi_code, sub_toi_code, normalized_outcome, filing_type_normalized,
           submission_date, disposition_date, state_status_changed_date, meta_text, record)
         values (?, ?, ?, ?, upper(?), upper(?), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (filing_id) do update set stream_version = excluded.stream_version, source = excluded.source, source_reference = excluded.source_reference,
           reference_key = excluded.reference_key, state = excluded.state, company_name = excluded.company_name, product_name = excluded.product_name,
           naic_company_codes = excluded.naic_company_codes, carrier_ids = excluded.carrier_ids, group_id = excluded.group_id, toi_code = excluded.toi_code,
           sub_toi_code = excluded.sub_toi_code, normalized_outcome = excluded.normalized_outcome, filing_type_normalized = excluded.filing_type_normalized,
           submission_date = excluded.submission_date, disposition_date = excluded.disposition_date, state_status_changed_date = excluded.state_status_changed_date,
           meta_text = excluded.meta_text, record = excluded.record
         where ${t('search_filings')}.stream_version < excluded.stream_version
         returning filing_id`,
        [
          f.id, x.version, f.source, f.sourceReference, f.sourceReference, f.state, f.companyName, f.productName,
          f.naicCompanyCodes, f.carrierIds, f.groupId, f.toiCode, f.subToiCode, f.normalizedOutcome, f.filingTypeNormalized,
          f.submissionDate, f.dispositionDate, f.stateStatusChangedDate, meta.replaceAll('\u0000', ' '), JSON.stringify(recordOf(f)),
        ],
      );
      if (res.rows.length) changed.push(x);
    }
    if (!changed.length) return;
    await trx(t('search_pages')).whereIn('filing_id', changed.map((x) => x.filing.id)).delete();
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
  }

  async remove({ trx, table: t }: IndexWriteContext, filingIds: string[]): Promise<void> {
    await trx(t('search_pages')).whereIn('filing_id', filingIds).delete();
    await trx(t('search_filings')).whereIn('filing_id', filingIds).delete();
  }

  private filterSql(q: SearchQuery): { sql: string; bindings: Knex.RawBinding[] } {
    const parts: string[] = ['true'];
    const b: Knex.RawBinding[] = [];
    if (q.dataScope === 'recent') parts.push(`(f.submission_date >= '${RECENT_FROM}' or f.submission_date is null)`);
    if (q.dataScope === 'historical') parts.push(`f.submission_date < '${RECENT_FROM}'`);
    if (q.excludedSources.length) {
      parts.push(`f.source <> all(?::text[])`);
      b.push(q.excludedSources);
    }
    for (const flt of q.filters) this.filterPart(flt, parts, b);
    if (q.reference) {
      parts.push(q.reference.mode === 'exact' ? `(f.source = ? and f.reference_key = upper(?))` : `(f.source = ? and f.reference_key like upper(?) || '%')`);
      b.push(q.reference.source, q.reference.value.replace(/[%_\\]/g, ''));
    }
    return { sql: parts.join(' and '), bindings: b };
  }

  private filterPart(flt: IndexFilter, parts: string[], b: Knex.RawBinding[]): void {
    switch (flt.kind) {
      case 'in':
        parts.push(`${COLUMN[flt.field]} = any(?::text[])`);
        b.push(flt.field === 'state' ? flt.values.map((v) => v.toUpperCase()) : flt.values);
        return;
      case 'contains':
        parts.push(`strpos(lower(${COLUMN[flt.field]}), lower(?)) > 0`);
        b.push(flt.value);
        return;
      case 'arrayAny':
        // Exclusion also drops filings whose codes are unknown (null or empty), as the GET list does.
        parts.push(flt.negate ? `(cardinality(${COLUMN[flt.field]}) > 0 and not (${COLUMN[flt.field]} && ?::text[]))` : `${COLUMN[flt.field]} && ?::text[]`);
        b.push(flt.values);
        return;
      case 'date':
        if (flt.from) {
          parts.push(`${COLUMN[flt.field]} >= ?::date`);
          b.push(flt.from);
        }
        if (flt.to) {
          parts.push(`${COLUMN[flt.field]} <= ?::date`);
          b.push(flt.to);
        }
        if (!flt.from && !flt.to) parts.push(`${COLUMN[flt.field]} is not null`);
        return;
      case 'reference':
        parts.push(`(${flt.refs.map(() => `(f.source = ? and f.reference_key = upper(?))`).join(' or ')})`);
        for (const r of flt.refs) b.push(r.source, r.reference);
        return;
    }
  }

  /** The tsqueries of a request, computed once: AND and OR of the keywords, each phrase, the intent's OR. */
  private async tsqueries(q: SearchQuery): Promise<{ and: string | null; or: string | null; phrases: string[]; intent: string | null }> {
    const res = await this.knex.raw(
      `select plainto_tsquery('${CONFIG}', ?)::text as a, plainto_tsquery('${CONFIG}', ?)::text as i, array(select phraseto_tsquery('${CONFIG}', x)::text from unnest(?::text[]) x) as p`,
      [q.keywords, q.intent ?? '', q.phrases],
    );
    const r = res.rows[0] as { a: string; i: string; p: string[] };
    const or = (s: string) => (s ? s.replace(/ & /g, ' | ') : null);
    return { and: r.a || null, or: or(r.a), phrases: (r.p ?? []).filter(Boolean), intent: or(r.i) };
  }

  private orderSql(sort: SortKey[]): string {
    const col: Record<string, string> = {
      relevance: 'c.score',
      submissionDate: 's.submission_date',
      dispositionDate: 's.disposition_date',
      stateStatusChangedDate: 's.state_status_changed_date',
      companyName: 's.company_name',
      state: 's.state',
    };
    return [...sort.map((k) => `${col[k.field]} ${k.direction} nulls last`), 'c.score desc', 's.filing_id asc'].join(', ');
  }

  async search(q: SearchQuery): Promise<SearchPage> {
    const filter = this.filterSql(q);
    const ts = q.reference ? { and: null, or: null, phrases: [], intent: null } : await this.tsqueries(q);
    if (!(ts.or || ts.phrases.length)) return this.filterOnly(q, filter);
    const and = await this.textual(q, filter, ts, false);
    // AND first; the OR of the keywords only fills a window the AND matches leave short.
    // A capped AND tier already holds more matches than it ranked: OR would only add weaker ones.
    const result = and.n <= q.window && !and.capped && ts.or && ts.or !== ts.and ? await this.textual(q, filter, ts, true) : and;
    return this.page(q, result.ranked, result.n, result.capped);
  }

  /** A tracking-number query or a query without searchable words: the filters select, newest first. */
  private async filterOnly(q: SearchQuery, filter: { sql: string; bindings: Knex.RawBinding[] }): Promise<SearchPage> {
    const res = await this.knex.raw(
      `select f.filing_id, 0::float8 as score, null::jsonb as matches from search_filings f where ${filter.sql}
       order by f.submission_date desc nulls last, f.filing_id limit ?`,
      [...filter.bindings, q.window + 1],
    );
    const ranked = res.rows as Ranked[];
    return this.page(q, ranked, ranked.length, false);
  }

  /**
   * The candidate window of a text query, with bounded work: at most PAGE_CAP matching pages (and
   * META_CAP matching metadata rows) per tier are ranked, whatever the size of the corpus. The AND
   * tier takes pages holding every keyword (and every honoured phrase); the OR tier (`or`) adds
   * pages holding any keyword. When a tier hits its cap, the ranked pages are the first ones the
   * index yields, not the best of all matches, and the result is not exhaustive.
   */
  private async textual(
    q: SearchQuery,
    filter: { sql: string; bindings: Knex.RawBinding[] },
    ts: { and: string | null; or: string | null; phrases: string[]; intent: string | null },
    or: boolean,
  ): Promise<{ ranked: Ranked[]; n: number; capped: boolean }> {
    const rankQ = ts.or ?? ts.phrases[0];
    const b: Knex.RawBinding[] = [];
    const inFilter = `exists (select 1 from search_filings f where f.filing_id = p.filing_id and ${filter.sql})`;
    // Selection of a tier: AND of keywords and phrases; the OR tier takes the others matching any keyword.
    const phrasesSql = ts.phrases.map(() => `p.tsv @@ ?::tsquery`);
    const andSel = [...(ts.and ? ['p.tsv @@ ?::tsquery'] : []), ...phrasesSql].join(' and ');
    const andSelB = [...(ts.and ? [ts.and] : []), ...ts.phrases];
    const cols = 'p.filing_id, p.file_id, p.file_name, p.version_id, p.tsv';
    let pagesSql = `(select ${cols} from search_pages p where ${andSel} and ${inFilter} limit ${PAGE_CAP})`;
    b.push(...andSelB, ...filter.bindings);
    if (or) {
      pagesSql += ` union all (select ${cols} from search_pages p where p.tsv @@ ?::tsquery ${phrasesSql.map((x) => `and ${x}`).join(' ')}
        and not (${andSel}) and ${inFilter} limit ${PAGE_CAP})`;
      b.push(ts.or, ...ts.phrases, ...andSelB, ...filter.bindings);
    }
    const andBonus = ts.and ? `+ (case when p.tsv @@ ?::tsquery then 1 else 0 end)` : '';
    const intent = ts.intent ? `+ ${INTENT_WEIGHT} * ts_rank_cd(p.tsv, ?::tsquery, ${NORM})` : '';
    // Metadata cannot hold a phrase condition per page, so with honoured phrases only documents count.
    const meta = ts.or && !ts.phrases.length;
    const metaSel = or ? ts.or : ts.and ?? ts.or;
    const sql = `
      with pg as materialized (${pagesSql}),
      ph as (select p.filing_id, p.file_id, p.file_name, p.version_id,
               ts_rank_cd(p.tsv, ?::tsquery, ${NORM}) ${andBonus} ${intent} as r from pg p),
      fh as (select filing_id, file_id, file_name, version_id, max(r) as r from ph group by 1, 2, 3, 4),
      dh as (select filing_id, max(r) + 0.05 * ln(count(*)) as r,
               jsonb_agg(jsonb_build_object('fileId', file_id, 'name', file_name, 'versionId', version_id) order by r desc, file_id) as matches
             from fh group by 1),
      mm as materialized (${meta ? `select f.filing_id, f.meta_tsv from search_filings f where f.meta_tsv @@ ?::tsquery and ${filter.sql} limit ${META_CAP}` : `select null::uuid as filing_id, null::tsvector as meta_tsv where false`}),
      mh as (select filing_id, ${META_WEIGHT} * (ts_rank_cd(meta_tsv, ?::tsquery, ${NORM}) + (case when meta_tsv @@ ?::tsquery then 1 else 0 end)) as r from mm),
      c as (select coalesce(dh.filing_id, mh.filing_id) as filing_id, coalesce(dh.r, 0) + coalesce(mh.r, 0) as score, dh.matches
            from dh full join mh on mh.filing_id = dh.filing_id)
      select c.*, (select count(*) from c)::int as n,
        ((select count(*) from pg) >= ${PAGE_CAP} or (select count(*) from mm) >= ${META_CAP}) as capped
      from c order by score desc, filing_id limit ?`;
    b.push(rankQ, ...(ts.and ? [ts.and] : []), ...(ts.intent ? [ts.intent] : []));
    if (meta) b.push(metaSel, ...filter.bindings);
    b.push(ts.or ?? '', ts.and ?? ts.or ?? '', q.window + 1);
    // The planner, expecting few matches, would hash the whole filings table for the filter (and scan the
    // pages for the OR tier); the bounded tiers want index probes per matching page instead.
    const res = await this.knex.transaction(async (trx) => {
      await trx.raw('set local enable_hashjoin = off; set local enable_seqscan = off');
      return (await trx.raw(sql, b)) as { rows: unknown[] };
    });
    const rows = res.rows as (Ranked & { n: number; capped: boolean })[];
    return { ranked: rows, n: rows[0]?.n ?? 0, capped: rows[0]?.capped ?? false };
  }

  /** Sorts the window, cuts the page and reads the records of the page's filings only (the window's are never decoded). */
  private async page(q: SearchQuery, ranked: Ranked[], n: number, capped: boolean): Promise<SearchPage> {
    const window = ranked.slice(0, q.window);
    const exhaustive = n <= q.window && !capped;
    if (!window.length) return { hits: [], candidates: 0, exhaustive };
    const res = await this.knex.raw(
      `with c as (select * from unnest(?::uuid[], ?::float8[], ?::int[]) as c(filing_id, score, i)),
       o as (select c.i, s.filing_id, row_number() over (order by ${this.orderSql(q.sort)}) as ord
             from c join search_filings s on s.filing_id = c.filing_id order by ord offset ? limit ?)
       select o.i, s.record from o join search_filings s on s.filing_id = o.filing_id order by o.ord`,
      [window.map((r) => r.filing_id), window.map((r) => Number(r.score)), window.map((_, i) => i), q.offset, q.limit],
    );
    const rows = res.rows as { i: number; record: CatalogFilingFields }[];
    return {
      hits: rows.map((r) => ({ filing: { ...recordOf(r.record) } as CatalogFilingFields, score: Number(window[r.i].score), matches: window[r.i].matches ?? [] })),
      candidates: Math.min(n, q.window),
      exhaustive,
    };
  }

  async passages(q: SearchQuery, matches: MatchRef[], perFile: number): Promise<Map<string, Passage[]>> {
    const out = new Map<string, Passage[]>();
    if (!matches.length || q.reference) return out;
    const ts = await this.tsqueries(q);
    const parts = [...(ts.or ? [ts.or] : []), ...ts.phrases];
    if (!parts.length) return out;
    const query = parts.map((p) => `(${p})`).join(' | ');
    const res = await this.knex.raw(
      `select x.file_id, x.page_start, x.page_end,
         ts_headline('${CONFIG}', x.body, ?::tsquery, 'MaxFragments=2, MinWords=12, MaxWords=40, FragmentDelimiter=" … ", StartSel="", StopSel=""') as text
       from (select p.file_id, p.page_start, p.page_end, p.body,
               row_number() over (partition by p.file_id order by ts_rank_cd(p.tsv, ?::tsquery, ${NORM}) desc, p.page_start, p.segment) as rn
             from search_pages p
             where p.filing_id = any(?::uuid[]) and p.file_id = any(?::uuid[]) and p.tsv @@ ?::tsquery) x
       where x.rn <= ?
       order by x.file_id, x.rn`,
      [query, query, [...new Set(matches.map((m) => m.filingId))], matches.map((m) => m.fileId), query, perFile],
    );
    for (const r of res.rows as { file_id: string; page_start: number | null; page_end: number | null; text: string }[]) {
      const list = out.get(r.file_id) ?? [];
      list.push({ text: r.text.replace(/\s+/g, ' ').trim(), pageStart: r.page_start, pageEnd: r.page_end });
      out.set(r.file_id, list);
    }
    return out;
  }
}
