import type { Knex } from 'knex';

/** Service-wide settings shared by every process on one database (the signing secret among them). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`create table service_settings (key text primary key, value text not null)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table service_settings`);
}
