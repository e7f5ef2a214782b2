import type { Knex } from 'knex';

/**
 * Idempotency-Key answers (Stripe convention), shared by every API host. A row without `status` is a
 * request in flight, claimed until `locked_until`; `expires_at` (24 hours after the first request) ends
 * the key, and the index lets the cleanup find expired rows without a scan.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create table idempotency_keys (
      tenant_id text not null,
      user_id text not null,
      key text not null,
      fingerprint text not null,
      status int,
      headers jsonb,
      body text,
      locked_until timestamptz,
      expires_at timestamptz not null,
      primary key (tenant_id, user_id, key)
    );
    create index on idempotency_keys (expires_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`drop table idempotency_keys`);
}
