import type { Knex } from 'knex';

/** Small blobs (extracted texts, most originals) live in Postgres: batched writes, shared by every process. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table blob_small (sha256 text primary key, size int not null, content bytea not null)`);
  // Contents are content-addressed and already compressed where it matters (PDF); skip TOAST compression work.
  await knex.raw(`alter table blob_small alter column content set storage external`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table blob_small`);
}
