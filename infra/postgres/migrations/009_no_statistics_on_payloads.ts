import type { Knex } from 'knex';

/**
 * Event payloads and blob contents are only ever read whole, never filtered or sorted on. While an import
 * grows these tables, autoanalyze samples them again and again and computes statistics (most-common values,
 * histograms: sorts) over the sampled 1.5 KB jsonb documents and 3 KB blobs. Autovacuum was ~10 % of the
 * Postgres CPU of an import (not its insert-triggered vacuums: turning those off changed nothing); with
 * statistics target 0 on these columns and the catalog's wide columns, Postgres CPU per filing fell from
 * 319 to 309 us (200,000 filings, side by side). The planner then assumes a default width for them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table es_events alter column data set statistics 0, alter column metadata set statistics 0');
  await knex.raw('alter table blob_small alter column content set statistics 0');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table es_events alter column data set statistics -1, alter column metadata set statistics -1');
  await knex.raw('alter table blob_small alter column content set statistics -1');
}
