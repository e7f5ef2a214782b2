import type { Knex } from 'knex';

/**
 * Typed log reads are one prepared statement (PostgresEventStore.readAll), and its generic plan walks
 * es_events_global_order and filters by type: the type index was no longer read, yet every append paid an
 * insert into it. A projector or consumer of rare types catching up from far behind reads the log once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('drop index if exists es_events_type_order');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('create index if not exists es_events_type_order on es_events (type, transaction_id, global_position)');
}
