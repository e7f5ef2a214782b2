import type { Knex } from 'knex';
import type { ScopeListingEvent } from '../../commands/scope-listings/scope-listing-entry';
import type { RecordedEvent } from '../../src/domain/events';
import type { ProjectionContext, Projector, TableNamer } from '../projector';
import { SCOPE_LISTINGS_PROJECTION } from '../managed-filings/names';

/** The company, jurisdiction and product listings of each scope. */
export class ScopeListingsProjector implements Projector {
  readonly name = SCOPE_LISTINGS_PROJECTION;
  readonly version = 1;
  readonly tables = ['scope_listing_entries'];
  readonly eventTypes = ['ScopeListingEntryRecorded'];

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('scope_listing_entries')} (kind text not null, id uuid not null, scope text not null, scope_id uuid not null,
        name text not null, name_key text not null, code text, version integer not null, primary key (kind, id));
      create index on ${t('scope_listing_entries')} (kind, scope_id, name_key, id);
    `);
  }

  async apply({ trx, table: t }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    for (const raw of events) {
      const e = raw as unknown as ScopeListingEvent;
      const d = e.data;
      await trx.raw(
        `insert into ${t('scope_listing_entries')} (kind, id, scope, scope_id, name, name_key, code, version) values (?, ?, ?, ?, ?, ?, ?, ?)
         on conflict (kind, id) do update set name = excluded.name, name_key = excluded.name_key, code = excluded.code, version = excluded.version
         where ${t('scope_listing_entries')}.version < excluded.version`,
        [d.kind, d.id, d.scope, d.scopeId, d.name, d.name.toLowerCase(), d.code, raw.version],
      );
    }
  }
}
