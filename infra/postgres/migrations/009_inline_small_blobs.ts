import type { Knex } from 'knex';

/**
 * Blobs up to a page are kept in the row itself. With the default TOAST target (~2 KB) every extracted
 * text over 2 KB, most of them, went out of line: two or more chunk rows in the TOAST table and its
 * index per blob, all WAL-logged, on every import line. Storage stays `external` (no compression: a
 * pglz pass over a 3 KB text cost more Postgres CPU than its smaller WAL saved); larger blobs still
 * go out of line.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('alter table blob_small set (toast_tuple_target = 8160)');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('alter table blob_small reset (toast_tuple_target)');
}
