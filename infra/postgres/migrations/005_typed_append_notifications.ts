import type { Knex } from 'knex';

/**
 * Append notifications name the appended event types, so a subscriber wakes only the projectors that
 * read them (waking every projector on every append cost each write a dozen queries).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger es_events_notify on es_events;
    create or replace function es_notify_append() returns trigger language plpgsql as $$
    declare
      types text;
    begin
      select string_agg(distinct type, ',') into types from appended;
      -- NOTIFY payloads are limited to 8000 bytes; an empty payload means "anything".
      perform pg_notify('ifrs_events', case when length(types) < 7900 then types else '' end);
      return null;
    end $$;
    create trigger es_events_notify after insert on es_events
      referencing new table as appended
      for each statement execute function es_notify_append();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger es_events_notify on es_events;
    create or replace function es_notify_append() returns trigger language plpgsql as $$
    begin
      perform pg_notify('ifrs_events', '');
      return null;
    end $$;
    create trigger es_events_notify after insert on es_events for each statement execute function es_notify_append();
  `);
}
