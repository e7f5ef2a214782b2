import type { Knex } from 'knex';
import type { ManagedFilingEvent } from '../../src/domain/events/managed-filings';
import type { FilingFields } from '../../src/domain/filing-fields';
import type { ScriptedProjector } from '../engine';
import { type ProjectionContext, type TableNamer, notApplied, type EventCoverage, type ProjectedEvent } from '../projector';
import { upsertStatement, type SqlStatement } from '../batch-sql';
import { runStatements } from '../batch-script';
import { MANAGED_FILINGS_PROJECTION, WORKING_FILINGS_RUN_GROUP } from '../../src/read-models/projection-names';

const COLUMNS: Record<keyof FilingFields, string> = {
  companyId: 'company_id',
  jurisdictionId: 'jurisdiction_id',
  primaryProductId: 'primary_product_id',
  additionalProductIds: 'additional_product_ids',
  predecessorFilingId: 'predecessor_filing_id',
  projectId: 'project_id',
  filingType: 'filing_type',
  description: 'description',
  serffTrackingNumber: 'serff_tracking_number',
  stateTrackingNumber: 'state_tracking_number',
  companyTrackingNumber: 'company_tracking_number',
  reviewType: 'review_type',
  toiCode: 'toi_code',
  subToiCode: 'sub_toi_code',
  disposition: 'disposition',
  dispositionDate: 'disposition_date',
  effectiveFromNew: 'effective_from_new',
  effectiveFromRenewal: 'effective_from_renewal',
};

export function fieldsToColumns(f: Partial<FilingFields>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(f)) if (k in COLUMNS) row[COLUMNS[k as keyof FilingFields]] = k === 'additionalProductIds' ? JSON.stringify(v) : v;
  return row;
}

/** Items and comments of the same stream are other read models. */
const HANDLES = {
  ManagedFilingCreated: 'applied',
  ManagedFilingUpdated: 'applied',
  ManagedFilingShared: 'applied',
  ManagedFilingItemAdded: 'ignored',
  ManagedFilingItemChanged: 'ignored',
  FilingCommentPosted: 'ignored',
  FilingCommentEdited: 'ignored',
  FilingCommentDeleted: 'ignored',
  FilingThreadResolved: 'ignored',
  FilingThreadReopened: 'ignored',
} as const satisfies EventCoverage<ManagedFilingEvent>;

type Projected = ProjectedEvent<ManagedFilingEvent, typeof HANDLES>;

/** Filing records (base and full fields) and the scopes of other tenants they are shared into. */
export class ManagedFilingsProjector implements ScriptedProjector<ManagedFilingEvent, typeof HANDLES> {
  readonly name = MANAGED_FILINGS_PROJECTION;
  readonly runGroup = WORKING_FILINGS_RUN_GROUP;
  readonly version = 1;
  readonly tables = ['managed_filings', 'managed_filing_shares'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('managed_filings')} (
        id uuid primary key, scope text not null, scope_id uuid not null, tenant_id text not null, filing_mode text,
        company_id uuid not null, jurisdiction_id uuid not null, primary_product_id uuid not null, additional_product_ids jsonb not null,
        predecessor_filing_id uuid, project_id uuid, filing_type text not null, description text,
        serff_tracking_number text, state_tracking_number text, company_tracking_number text,
        review_type text, toi_code text, sub_toi_code text, disposition text,
        disposition_date text, effective_from_new text, effective_from_renewal text,
        created_at timestamptz not null, updated_at timestamptz not null, version integer not null);
      create index on ${t('managed_filings')} (scope_id, created_at desc, id);
      create index on ${t('managed_filings')} (created_at desc, id);
      create table ${t('managed_filing_shares')} (filing_id uuid not null, scope_id uuid not null, tenant_id text not null, primary key (scope_id, filing_id));
      create index on ${t('managed_filing_shares')} (filing_id);
    `);
  }

  /**
   * New filings go in one insert per batch, before the batch's updates and shares: those can only
   * follow a filing's creation in its stream, so doing the inserts first keeps each row's order.
   */
  async apply({ trx, table }: ProjectionContext, events: Projected[]): Promise<void> {
    await runStatements(trx, this.batchStatements(events, table));
  }

  batchStatements(events: Projected[], t: TableNamer): SqlStatement[] {
    const created: Record<string, unknown>[] = [];
    const later: Projected[] = [];
    for (const e of events) {
      if (e.type === 'ManagedFilingCreated') {
        const d = e.data;
        // Every column, raw values (jsonb from the JSON itself): the rows travel as one JSON parameter.
        const row: Record<string, unknown> = { id: d.filingId, scope: d.scope, scope_id: d.scopeId, tenant_id: d.tenantId, filing_mode: d.filingMode };
        for (const [field, column] of Object.entries(COLUMNS)) row[column] = d.fields[field as keyof FilingFields] ?? null;
        created.push({ ...row, created_at: d.createdAt, updated_at: d.createdAt, version: e.version });
      } else later.push(e);
    }
    const out: SqlStatement[] = [];
    const insert = upsertStatement(t('managed_filings'), created, { conflict: ['id'], update: 'ignore' });
    if (insert) out.push(insert);
    for (const e of later) {
      switch (e.type) {
        case 'ManagedFilingUpdated': {
          const { filingMode, ...fields } = e.data.changes;
          const set: Record<string, unknown> = { ...fieldsToColumns(fields), ...(filingMode !== undefined ? { filing_mode: filingMode } : {}), updated_at: e.data.updatedAt };
          // An absent field keeps its column (as knex's update skipped undefined values).
          const cols = Object.keys(set).filter((c) => set[c] !== undefined);
          out.push({
            text: `update ${t('managed_filings')} set ${cols.map((c, i) => `${c} = $${i + 1}`).join(', ')}, version = $${cols.length + 1}
              where id = $${cols.length + 2} and version < $${cols.length + 1}`,
            values: [...cols.map((c) => set[c]), e.version, e.data.filingId],
          });
          break;
        }
        case 'ManagedFilingShared':
          out.push({
            text: `insert into ${t('managed_filing_shares')} (filing_id, scope_id, tenant_id) values ($1, $2, $3) on conflict (scope_id, filing_id) do nothing`,
            values: [e.data.filingId, e.data.scopeId, e.data.tenantId],
            reuse: true,
          });
          break;
        case 'ManagedFilingCreated':
          break;
        default:
          // Items and comments of the same stream are other read models.
          notApplied(e);
      }
    }
    return out;
  }
}
