import type { Knex } from 'knex';

/**
 * No NOTIFY on append: a notifying transaction takes a global lock at commit and serialised
 * concurrent appends (about 45% of append throughput at 16 writers). Subscribers watch the log's
 * highest position instead (PostgresEventStore.onAppended).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`drop trigger if exists es_events_notify on es_events; drop function if exists es_notify_append();`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    create function es_notify_append() returns trigger language plpgsql as $$
    declare
      types text;
    begin
      select string_agg(distinct type, ',') into types from appended;
      perform pg_notify('ifrs_events', case when length(types) < 7900 then types else '' end);
      return null;
    end $$;
    create trigger es_events_notify after insert on es_events
      referencing new table as appended
      for each statement execute function es_notify_append();
  `);
}
