import type { Knex } from 'knex';
import type { ScopeListingEvent } from '../../src/domain/events/scope-listings';
import type { ProjectionContext, Projector, TableNamer, EventCoverage, ProjectedEvent } from '../projector';
import { upsertRows } from '../batch-sql';
import { SCOPE_LISTINGS_PROJECTION } from '../../src/read-models/projection-names';

const HANDLES = { ScopeListingEntryRecorded: 'applied' } as const satisfies EventCoverage<ScopeListingEvent>;

/** The company, jurisdiction and product listings of each scope. */
export class ScopeListingsProjector implements Projector<ScopeListingEvent, typeof HANDLES> {
  readonly name = SCOPE_LISTINGS_PROJECTION;
  readonly version = 1;
  readonly tables = ['scope_listing_entries'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('scope_listing_entries')} (kind text not null, id uuid not null, scope text not null, scope_id uuid not null,
        name text not null, name_key text not null, code text, version integer not null, primary key (kind, id));
      create index on ${t('scope_listing_entries')} (kind, scope_id, name_key, id);
    `);
  }

  /**
   * One upsert per batch. As with the events applied one by one, an entry's scope is the one it was
   * first recorded under (an update changes only name, code and version) and the newest version wins.
   */
  async apply({ trx, table: t }: ProjectionContext, events: ProjectedEvent<ScopeListingEvent, typeof HANDLES>[]): Promise<void> {
    const rows = new Map<string, Record<string, unknown>>();
    for (const e of events) {
      const d = e.data;
      const key = `${d.kind}\u0000${d.id}`;
      const first = rows.get(key);
      rows.set(key, {
        kind: d.kind,
        id: d.id,
        scope: first?.scope ?? d.scope,
        scope_id: first?.scope_id ?? d.scopeId,
        name: d.name,
        name_key: d.name.toLowerCase(),
        code: d.code,
        version: e.version,
      });
    }
    await upsertRows(trx, t('scope_listing_entries'), [...rows.values()], { conflict: ['kind', 'id'], update: ['name', 'name_key', 'code', 'version'], newerBy: 'version' });
  }
}
