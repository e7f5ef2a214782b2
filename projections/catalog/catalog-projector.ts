import type { Knex } from 'knex';
import { type CatalogFilingEvent } from '../../src/domain/events/catalog';
import { sourceReferenceKey } from '../../src/domain/catalog-enums';
import { assertNever } from '../../src/domain/decider';
import type { GroupedProjector } from '../engine';
import type { ProjectionContext, TableNamer, EventCoverage, ProjectedEvent } from '../projector';
import { CATALOG_COMPANY_NAMES, CATALOG_FILINGS, CATALOG_PRODUCT_NAMES, CATALOG_PROJECTION, CATALOG_RUN_GROUP } from '../../src/read-models/catalog';
import { upsertRows } from '../batch-sql';
import { listRecordJson } from '../../src/read-models/catalog-list-record';
import { upsertCatalogFilings, type CatalogFilingWrite } from './catalog-filing-upsert';
import { dropNotNull } from '../../infra/postgres/drop-not-null';
import { createMissingIndex } from '../../infra/postgres/create-missing-index';

/**
 * The state sort's indexes, one per direction: the spec breaks ties by id ascending both ways, and a state holds
 * tens of thousands of filings, too many to sort on every page (docs/catalog-query-plans.md). Written as
 * pg_get_indexdef writes them, so that an existing table missing one is found (createMissingIndex).
 */
const STATE_SORT_INDEXES = ['btree (state, id)', 'btree (state DESC NULLS LAST, id)'];

const HANDLES = { CatalogFilingImported: 'applied', CatalogFilingUpdated: 'applied' } as const satisfies EventCoverage<CatalogFilingEvent>;

/**
 * The catalog read model: one row per filing with the spec's fields as columns, so every list filter
 * and sort is a plain indexed predicate. Indexes follow the list's real query shapes (see
 * docs/catalog-query-plans.md): each sort key as (key desc nulls last, id) for the keyset, the common
 * equality filters leading a (filter, submission_date, id) index, GIN for NAIC code arrays.
 */
export class CatalogProjector implements GroupedProjector<CatalogFilingEvent, typeof HANDLES> {
  readonly runGroup = CATALOG_RUN_GROUP;
  readonly name = CATALOG_PROJECTION;
  readonly version = 4;
  readonly tables = [CATALOG_FILINGS, CATALOG_COMPANY_NAMES, CATALOG_PRODUCT_NAMES];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    const f = t(CATALOG_FILINGS);
    await trx.raw(`
      create table ${f} (
        id uuid primary key,
        version int not null,
        source text not null,
        source_reference text not null,
        source_reference_key text not null,
        state text not null,
        company_name text,
        naic_company_codes text[],
        naic_group_code text,
        carrier_ids text[],
        group_id text,
        product_name text not null,
        type_of_insurance text not null,
        sub_type_of_insurance text not null,
        toi_code text,
        sub_toi_code text,
        filing_type text not null,
        source_status text not null,
        submission_date date,
        disposition_date date,
        business_type text not null,
        normalized_outcome text not null,
        filing_type_normalized text not null,
        state_status_changed_date date,
        description text,
        files jsonb not null,
        list_record text not null
      );
      create table ${t(CATALOG_COMPANY_NAMES)} (name text primary key, lower_name text not null generated always as (lower(name)) stored);
      create table ${t(CATALOG_PRODUCT_NAMES)} (name text primary key, lower_name text not null generated always as (lower(name)) stored);
    `);
  }

  /**
   * company_name is null when the source names no company (spec: a field not marked required may be null). Unlike
   * the other text fields that may be missing (kept as '' in their filter columns, catalog-filing-upsert.ts), it
   * is a sort key, and a real null is what the list's ORDER BY ... nulls last and keyset branches (`is null`)
   * already place last in both directions; '' would sort first ascending. Tables created before were NOT NULL:
   * dropping that changes only Postgres's catalog, so the read model is not projected again (no version bump).
   * Likewise the state sort's indexes, added later: built once on the existing table rather than by a rebuild.
   */
  async upgradeSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await dropNotNull(trx, t(CATALOG_FILINGS), 'company_name');
    for (const index of STATE_SORT_INDEXES) await createMissingIndex(trx, t(CATALOG_FILINGS), index);
  }

  /** The list's indexes: a rebuild builds them once after loading every filing. */
  async createIndexes(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    const f = t(CATALOG_FILINGS);
    await trx.raw(`
      create index on ${f} (submission_date desc nulls last, id);
      create index on ${f} (disposition_date desc nulls last, id);
      create index on ${f} (state_status_changed_date desc nulls last, id);
      create index on ${f} (state, submission_date desc nulls last, id);
      create index on ${f} (state, toi_code, submission_date desc nulls last, id);
      create index on ${f} (toi_code, submission_date desc nulls last, id);
      create index on ${f} (sub_toi_code);
      create index on ${f} (source_reference_key, source);
      create index on ${f} (company_name, submission_date desc nulls last, id);
      create index on ${f} (product_name, submission_date desc nulls last, id);
      create index on ${f} (naic_group_code);
      create index on ${f} using gin (naic_company_codes);
      create index on ${f} (normalized_outcome, submission_date desc nulls last, id);
      ${STATE_SORT_INDEXES.map((index) => `create index on ${f} using ${index};`).join('\n      ')}
    `);
  }

  async apply({ trx, table: t }: ProjectionContext, events: ProjectedEvent<CatalogFilingEvent, typeof HANDLES>[]): Promise<void> {
    // A batch holds many filings: the last event of each stream wins, written with one upsert.
    const rows = new Map<string, CatalogFilingWrite & Record<string, unknown>>();
    const seen: Record<string, unknown>[] = [];
    for (const e of events) {
      switch (e.type) {
        case 'CatalogFilingImported':
        case 'CatalogFilingUpdated': {
          const x = e.data.filing;
          const row = {
            id: x.id,
            version: e.version,
            source: x.source,
            source_reference: x.sourceReference,
            source_reference_key: sourceReferenceKey(x.source, x.sourceReference),
            state: x.state,
            company_name: x.companyName,
            naic_company_codes: x.naicCompanyCodes,
            naic_group_code: x.naicGroupCode,
            carrier_ids: x.carrierIds,
            group_id: x.groupId,
            product_name: x.productName,
            type_of_insurance: x.typeOfInsurance,
            sub_type_of_insurance: x.subTypeOfInsurance,
            toi_code: x.toiCode,
            sub_toi_code: x.subToiCode,
            filing_type: x.filingType,
            source_status: x.sourceStatus,
            submission_date: x.submissionDate,
            disposition_date: x.dispositionDate,
            business_type: x.businessType,
            normalized_outcome: x.normalizedOutcome,
            filing_type_normalized: x.filingTypeNormalized,
            state_status_changed_date: x.stateStatusChangedDate,
            description: x.description,
            files: e.data.files.map((file) => ({ fileId: file.fileId, name: file.name, role: file.role, versionId: file.versionId })),
            list_record: '',
          };
          row.list_record = listRecordJson(row);
          rows.set(x.id, row);
          seen.push(row);
          break;
        }
        default:
          assertNever(e);
      }
    }
    if (!rows.size) return;
    // Conditional on the stream version, so replaying a batch is harmless.
    await upsertCatalogFilings(trx, t(CATALOG_FILINGS), [...rows.values()]);
    // Every name of the batch, also those a later event of the batch replaced: one-by-one application
    // would have recorded them too, and an extra name matches no filing.
    // A filing without a company or product name (null) adds no name.
    const names = (column: 'company_name' | 'product_name') => [...new Set(seen.map((r) => r[column]).filter((n): n is string => !!n))].sort().map((name) => ({ name }));
    await upsertRows(trx, t(CATALOG_COMPANY_NAMES), names('company_name'), { conflict: ['name'], update: 'ignore' });
    await upsertRows(trx, t(CATALOG_PRODUCT_NAMES), names('product_name'), { conflict: ['name'], update: 'ignore' });
  }
}
