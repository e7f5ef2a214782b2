import type { Knex } from 'knex';

/**
 * The Postgres event store. `transaction_id` is the appending transaction's id: subscribers read in
 * (transaction_id, global_position) order and only below the oldest running transaction, so an event
 * whose transaction commits late is never skipped (a plain bigserial cursor would skip it).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table es_streams (
      stream_id text primary key,
      version bigint not null
    );
    create table es_events (
      global_position bigserial primary key,
      transaction_id xid8 not null default pg_current_xact_id(),
      event_id uuid not null unique,
      stream_id text not null,
      version bigint not null,
      type text not null,
      schema_version int not null default 1,
      data jsonb not null,
      metadata jsonb not null,
      recorded_at timestamptz not null default now(),
      unique (stream_id, version)
    );
    create index es_events_global_order on es_events (transaction_id, global_position);
    create index es_events_type_order on es_events (type, transaction_id, global_position);

    create function es_notify_append() returns trigger language plpgsql as $$
    begin
      perform pg_notify('ifrs_events', '');
      return null;
    end $$;
    create trigger es_events_notify after insert on es_events
      for each statement execute function es_notify_append();

    create table projection_checkpoints (
      name text primary key,
      -- numeric, not xid8/bigint: the checkpoint also holds EventStoreDB commit/prepare positions.
      commit_position numeric(20) not null default 0,
      prepare_position numeric(20) not null default 0,
      version int not null default 0,
      updated_at timestamptz not null default now()
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table projection_checkpoints; drop table es_events; drop table es_streams; drop function es_notify_append();`);
}
