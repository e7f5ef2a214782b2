import type { Knex } from 'knex';
import type { CommandHandler } from '../command-handler';
import type { ImportContext, ImportOutcome, RecordImporter } from '../import/record-importer';
import { ImportRecordError, DomainError } from '../../src/domain/errors';
import { assertStorableText } from '../import/record-schema';
import { z } from '../../src/http/zod';
import { SCOPE_LISTINGS_PROJECTION } from '../../src/read-models/projection-names';
import { Uuid } from '../../src/http/schemas/working-filings';
import { scopeListingDecider, STREAM_CATEGORY } from './scope-listing-entry';
import type { ListingEntry, ListingKind } from '../../src/domain/events/scope-listings';

const ScopeUuid = z.string().regex(/^mc:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be mc:<lowercase uuid>');
const name = z.string().trim().min(1).max(500);

const RECORDS = {
  scope_company: z.strictObject({ type: z.literal('scope_company'), scope: ScopeUuid, id: Uuid, name, naicCompanyCode: z.string().regex(/^\d{5}$/).nullable().optional() }),
  scope_jurisdiction: z.strictObject({ type: z.literal('scope_jurisdiction'), scope: ScopeUuid, id: Uuid, code: z.string().min(1).max(10), name }),
  scope_product: z.strictObject({ type: z.literal('scope_product'), scope: ScopeUuid, id: Uuid, name }),
};

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.join('.') || 'record'}: ${i.message}`)
    .join('; ');
}

/** Imports scope_company, scope_jurisdiction and scope_product records into per-entry streams. */
export class ScopeListingImporter implements RecordImporter {
  readonly types = Object.keys(RECORDS);
  readonly projections = [SCOPE_LISTINGS_PROJECTION];

  constructor(private readonly handler: CommandHandler, private readonly knex: Knex) {}

  async import(record: Record<string, unknown>, ctx: ImportContext): Promise<ImportOutcome> {
    const schema = RECORDS[record.type as keyof typeof RECORDS];
    if (!schema) throw new ImportRecordError(`not a scope listing record: ${String(record.type)}`);
    const r = schema.safeParse(record);
    if (!r.success) throw new ImportRecordError(`${String(record.type)}: ${describeIssues(r.error)}`);
    const rec = r.data;
    // What goes into the event must be storable in jsonb (no NUL, no unpaired surrogate): a bad line, not a failed import.
    assertStorableText(rec);
    const scopeId = rec.scope.slice(3);
    const scope = await this.knex('identity_scopes').where({ scope_id: scopeId }).first('tenant_id');
    if (!scope) throw new ImportRecordError(`${rec.type}: no such scope ${rec.scope}`);
    const kind: ListingKind = rec.type === 'scope_company' ? 'company' : rec.type === 'scope_jurisdiction' ? 'jurisdiction' : 'product';
    const code = rec.type === 'scope_company' ? (rec.naicCompanyCode ?? null) : rec.type === 'scope_jurisdiction' ? rec.code : null;
    const entry: ListingEntry = { kind, id: rec.id, scope: rec.scope, scopeId, name: rec.name, code };
    try {
      const out = await this.handler.execute(scopeListingDecider, `${STREAM_CATEGORY[kind]}-${rec.id}`, { type: 'RecordEntry', entry }, { metadata: { ...ctx.metadata, tenantId: scope.tenant_id } });
      if (!out.events.length) return { status: 'unchanged' };
      return { status: out.version === out.events.length ? 'created' : 'updated' };
    } catch (e) {
      if (e instanceof DomainError) throw new ImportRecordError(e.message);
      throw e;
    }
  }
}
