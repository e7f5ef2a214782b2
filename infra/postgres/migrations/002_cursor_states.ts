import type { Knex } from 'knex';

/** Cursor state that does not fit in a 128-character cursor lives here under a random id. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table cursor_states (id text primary key, payload jsonb not null, expires_at timestamptz not null);
    create index on cursor_states (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table cursor_states`);
}
