import type { Knex } from 'knex';
import { hashApiKey, hashesEqual, parseApiKey } from '../../src/domain/api-keys';
import type { Principal } from '../../src/domain/principal';
import { KeyCache } from './key-cache';

/**
 * Resolves an API key to its principal. Answers are cached for a short time (revocation takes
 * effect within `ttlMs`); failures are cached too, so a flood of bad keys costs one query each.
 */
export class Authenticator {
  private readonly cache: KeyCache<Principal | null>;

  constructor(private readonly knex: Knex, ttlMs = 2000, maxEntries = 10_000) {
    this.cache = new KeyCache((apiKey) => this.lookup(parseApiKey(apiKey)!.keyId, apiKey), ttlMs, maxEntries);
  }

  /** A cached answer comes back synchronously, so the common request skips a promise round. */
  authenticate(apiKey: string): Principal | null | Promise<Principal | null> {
    if (!parseApiKey(apiKey)) return null;
    return this.cache.get(apiKey);
  }

  private async lookup(keyId: string, apiKey: string): Promise<Principal | null> {
    const row = await this.knex('identity_api_keys as k')
      .join('identity_users as u', 'u.id', 'k.user_id')
      .join('identity_tenants as t', 't.id', 'k.tenant_id')
      .where('k.key_id', keyId)
      .first('k.key_id', 'k.secret_hash', 'k.read_only', 'k.permissions', 'k.revoked', 'u.id as user_id', 'u.name', 'u.email', 't.id as tenant_id', 't.datasets', 't.sharing');
    if (!row || row.revoked || !hashesEqual(row.secret_hash, hashApiKey(apiKey))) return null;
    return {
      keyId: row.key_id,
      userId: row.user_id,
      tenantId: row.tenant_id,
      name: row.name ?? null,
      email: row.email ?? null,
      readOnly: row.read_only,
      permissions: row.permissions,
      tenant: { datasets: row.datasets, sharing: row.sharing },
    };
  }
}
