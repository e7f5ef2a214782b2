import type { Knex } from 'knex';

/**
 * Event ids a bus consumer group has finished handling (the Kafka bus dedupes on them). Kafka
 * delivers at least once — a relay that crashed between the broker's acknowledgement and its
 * checkpoint sends a batch again, a rebalance hands over uncommitted offsets — so a group skips
 * ids recorded here. Rows older than the topic's retention can no longer be redelivered and are pruned.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table bus_processed_events (
      group_name text not null,
      event_id uuid not null,
      processed_at timestamptz not null default now(),
      primary key (group_name, event_id)
    );
    create index bus_processed_events_age on bus_processed_events (processed_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table bus_processed_events`);
}
