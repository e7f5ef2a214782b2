import type { Knex } from 'knex';

/**
 * A file id belongs to one catalog filing (docs/catalog.md, "A file id belongs to one filing"): the
 * import claims each id for its filing in the transaction of the append. Write-side state kept next to
 * the event log, so it is migrated, not rebuilt with the read models. A log written before it gets the
 * claims its events imply: the first filing in log order to list an id holds it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table catalog_file_claims (file_id uuid primary key, filing_id uuid not null)`);
  await backfillFileClaims(knex);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table catalog_file_claims`);
}

/** Claims every file id the Postgres event log's catalog filing events list and nobody holds yet. */
export async function backfillFileClaims(knex: Knex): Promise<void> {
  await knex.raw(`
    insert into catalog_file_claims (file_id, filing_id)
    select distinct on (file_id) file_id, filing_id from (
      select (f->>'fileId')::uuid as file_id, (e.data->'filing'->>'id')::uuid as filing_id, e.transaction_id, e.global_position
      from es_events e cross join lateral jsonb_array_elements(case when jsonb_typeof(e.data->'files') = 'array' then e.data->'files' else '[]'::jsonb end) f
      where e.type in ('CatalogFilingImported', 'CatalogFilingUpdated')
        and f->>'fileId' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
        and e.data->'filing'->>'id' ~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
    ) listed
    order by file_id, transaction_id, global_position
    on conflict do nothing`);
}
