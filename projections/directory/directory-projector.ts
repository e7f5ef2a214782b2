import type { Knex } from 'knex';
import type { DirectoryEvent, ProductEvent } from '../../src/domain/events/directory';
import { normalizeNaicGroupCode } from '../../src/domain/catalog-enums';
import { assertNever } from '../../src/domain/decider';
import type { GroupedProjector } from '../engine';
import type { ProjectionContext, TableNamer, EventCoverage, ProjectedEvent } from '../projector';
import { CATALOG_RUN_GROUP } from '../../src/read-models/catalog';
import { DIR, DIRECTORY_PROJECTION } from '../../src/read-models/directory';
import { upsertRows } from '../batch-sql';

const HANDLES = {
  CarrierGroupImported: 'applied',
  CarrierGroupUpdated: 'applied',
  CarrierImported: 'applied',
  CarrierUpdated: 'applied',
  MgaImported: 'applied',
  MgaUpdated: 'applied',
  ProductImported: 'applied',
  ProductUpdated: 'applied',
} as const satisfies EventCoverage<DirectoryEvent>;

/** Lower-cased name and aliases, one per line: "name matches names and aliases" is one substring test. */
const searchText = (name: string, aliases: string[] = []) => [name, ...aliases].join('\n').toLowerCase();

/**
 * The directories (carrier groups, carriers, MGAs, products) as one read model: the lists join them
 * (a carrier's group name, a product's writing companies), so they live and rebuild together.
 */
export class DirectoryProjector implements GroupedProjector<DirectoryEvent, typeof HANDLES> {
  readonly runGroup = CATALOG_RUN_GROUP;
  readonly name = DIRECTORY_PROJECTION;
  readonly version = 1;
  readonly tables = Object.values(DIR);
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t(DIR.groups)} (id text primary key, version int not null, name text not null, search text not null,
        identifiers jsonb not null, naic_codes text[] not null);
      create index on ${t(DIR.groups)} (name, id);
      create index on ${t(DIR.groups)} using gin (naic_codes);
      create table ${t(DIR.carriers)} (id text primary key, version int not null, name text not null, search text not null,
        identifiers jsonb not null, naic_codes text[] not null, group_id text, domicile text, status text, aliases text[] not null,
        gross_premium_written jsonb, cession_ratio jsonb, merged_into text);
      create index on ${t(DIR.carriers)} (name, id);
      create index on ${t(DIR.carriers)} (group_id);
      create index on ${t(DIR.carriers)} (merged_into);
      create index on ${t(DIR.carriers)} using gin (naic_codes);
      create index on ${t(DIR.carriers)} using gin (identifiers jsonb_path_ops);
      create table ${t(DIR.mgas)} (id text primary key, version int not null, slug text not null, name text not null, search text not null,
        aliases text[] not null, carriers jsonb not null);
      create index on ${t(DIR.mgas)} (name, id);
      create index on ${t(DIR.mgas)} using gin (carriers jsonb_path_ops);
      create table ${t(DIR.products)} (id text primary key, version int not null, name text not null, product_type text not null,
        admitted boolean not null, predecessor_product_id text, note text, group_id text, mga_id text, states text[] not null,
        availability jsonb not null, claims jsonb not null, filings jsonb not null);
      create index on ${t(DIR.products)} (lower(name), id);
      create table ${t(DIR.availability)} (product_id text not null, ord int not null, state text not null,
        writing_company_ids text[] not null, toi_codes text[] not null, subtoi_codes text[] not null, primary key (product_id, ord));
      create index on ${t(DIR.availability)} (state);
    `);
  }

  /**
   * Every directory event is a snapshot of its record, and rows move only to a newer stream version, so
   * a batch folds to the last event per record and writes each table with one statement: the same end
   * state as applying the events one by one. A product's availability rows are replaced only when its
   * row moved (a replayed event changes nothing).
   */
  async apply({ trx, table: t }: ProjectionContext, events: ProjectedEvent<DirectoryEvent, typeof HANDLES>[]): Promise<void> {
    type Rows = Map<string, Record<string, unknown>>;
    const rows = { groups: new Map() as Rows, carriers: new Map() as Rows, mgas: new Map() as Rows, products: new Map() as Rows };
    const availability = new Map<string, ProductEvent['data']['availability']>();
    for (const e of events) {
      const version = e.version;
      switch (e.type) {
        case 'CarrierGroupImported':
        case 'CarrierGroupUpdated': {
          const g = e.data;
          rows.groups.set(g.id, {
            id: g.id,
            version,
            name: g.name,
            search: searchText(g.name),
            identifiers: g.identifiers,
            naic_codes: g.identifiers.filter((i) => i.scheme === 'naic_group').map((i) => normalizeNaicGroupCode(i.value)),
          });
          break;
        }
        case 'CarrierImported':
        case 'CarrierUpdated': {
          const c = e.data;
          rows.carriers.set(c.id, {
            id: c.id,
            version,
            name: c.name,
            search: searchText(c.name, c.aliases),
            identifiers: c.identifiers,
            naic_codes: c.identifiers.filter((i) => i.scheme === 'naic_company').map((i) => i.value),
            group_id: c.groupId,
            domicile: c.domicile,
            status: c.status,
            aliases: c.aliases,
            gross_premium_written: c.grossPremiumWritten ?? null,
            cession_ratio: c.cessionRatio ?? null,
            merged_into: c.mergedInto,
          });
          break;
        }
        case 'MgaImported':
        case 'MgaUpdated': {
          const m = e.data;
          rows.mgas.set(m.id, { id: m.id, version, slug: m.slug, name: m.name, search: searchText(m.name, m.aliases), aliases: m.aliases, carriers: m.carriers });
          break;
        }
        case 'ProductImported':
        case 'ProductUpdated': {
          const p = e.data;
          rows.products.set(p.id, {
            id: p.id,
            version,
            name: p.name,
            product_type: p.productType,
            admitted: p.admitted,
            predecessor_product_id: p.predecessorProductId,
            note: p.note,
            group_id: p.groupId,
            mga_id: p.mgaId,
            states: p.availability.map((a) => a.state),
            availability: p.availability,
            claims: p.claims,
            filings: p.filings,
          });
          availability.set(p.id, p.availability);
          break;
        }
        default:
          assertNever(e);
      }
    }
    const upsert = (table: string, m: Map<string, Record<string, unknown>>) =>
      upsertRows(trx, table, [...m.values()], { conflict: ['id'], newerBy: 'version', returning: ['id'] });
    await upsert(t(DIR.groups), rows.groups);
    await upsert(t(DIR.carriers), rows.carriers);
    await upsert(t(DIR.mgas), rows.mgas);
    const moved = (await upsert(t(DIR.products), rows.products)).map((r) => String(r.id));
    if (!moved.length) return;
    await trx.raw(`delete from ?? where product_id = any(?::text[])`, [t(DIR.availability), moved]);
    await upsertRows(
      trx,
      t(DIR.availability),
      moved.flatMap((id) =>
        availability.get(id)!.map((a, ord) => ({ product_id: id, ord, state: a.state, writing_company_ids: a.writingCompanyIds, toi_codes: a.toiCodes, subtoi_codes: a.subtoiCodes })),
      ),
    );
  }
}
