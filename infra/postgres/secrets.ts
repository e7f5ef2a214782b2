import crypto from 'node:crypto';
import type { Knex } from 'knex';

/**
 * The HMAC key for cursors and signed addresses. IFRS_SECRET wins; otherwise one random key is made
 * once and kept in the database, so every process on that database (API, projector, indexer) agrees.
 */
export async function loadSecret(knex: Knex, fromEnv: string | null): Promise<Buffer> {
  if (fromEnv) return crypto.createHash('sha256').update(fromEnv).digest();
  await knex.raw(`insert into service_settings (key, value) values ('signing_secret', ?) on conflict do nothing`, [crypto.randomBytes(32).toString('hex')]);
  const row = await knex('service_settings').where({ key: 'signing_secret' }).first('value');
  return Buffer.from(row.value, 'hex');
}
