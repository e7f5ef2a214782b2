import type { Knex } from 'knex';
import type { IndexWriteContext, IndexedFiling } from '../../src/ports/search-index';
import { CONFIG, FILTER_MARKS_SQL, INSERT_BATCH, ROW_TARGET, SLICES, SUMMARY_LENGTH_SQL, SUMMARY_OCCURRENCES, SUMMARY_WIDE_CHARS, recordOf, segments, sliceOf } from './postgres-search-sql';
export async function createSearchSchema(trx: Knex.Transaction, t: (logical: string) => string): Promise<void> {
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

export async function upsertIndexed({ trx, table: t }: IndexWriteContext, filings: IndexedFiling[]): Promise<void> {
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

export async function removeIndexed({ trx, table: t }: IndexWriteContext, filingIds: string[]): Promise<void> {
  await trx(t('search_pages')).whereIn('filing_id', filingIds).delete();
  await trx(t('search_filings')).whereIn('filing_id', filingIds).delete();
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
