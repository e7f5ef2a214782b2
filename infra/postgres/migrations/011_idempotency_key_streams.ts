import type { Knex } from 'knex';

/**
 * The streams a keyed request was about to append to, noted before each append (see
 * src/http/idempotency.ts): a retry that takes over the claim of a host that died reads only these
 * streams to learn whether that host's write committed, on any event store.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`alter table idempotency_keys add column streams text[] not null default '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`alter table idempotency_keys drop column streams`);
}
