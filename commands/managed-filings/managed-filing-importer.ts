import type { Knex } from 'knex';
import type { CommandHandler } from '../command-handler';
import type { ImportContext, ImportOutcome, RecordImporter } from '../import/record-importer';
import { ImportRecordError, DomainError } from '../../src/domain/errors';
import { z } from '../../src/http/zod';
import { MANAGED_FILINGS_PROJECTION, MANAGED_FILING_HISTORY_PROJECTION } from '../../src/read-models/projection-names';
import { CreateFilingBody, Uuid } from '../../src/http/schemas/working-filings';
import { describeIssues } from '../scope-listings/scope-listing-importer';
import { assertStorableText } from '../import/record-schema';
import { completeFields } from '../../src/domain/filing-fields';
import { managedFilingDecider } from './managed-filing';
import { streamOf } from './managed-filing-commands';

const Record_ = CreateFilingBody.extend({
  type: z.literal('managed_filing'),
  scope: z.string().regex(/^mc:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'must be mc:<lowercase uuid>'),
  id: Uuid,
  // Without the field the record is unclassified legacy data, as with null.
  filingMode: z.enum(['reference']).nullable().default(null),
});

/**
 * Imports `managed_filing` records (reference or legacy null-mode filings, read-only in the API).
 * Working (`managed`) filings are created through the API only. The same record twice appends nothing;
 * a changed record appends ManagedFilingUpdated with what changed. Imported records are taken as given
 * against the scope listings (a file may list them after the filing); formats, enums and the
 * TOI/sub-TOI pairing are checked like the API does.
 */
export class ManagedFilingImporter implements RecordImporter {
  readonly types = ['managed_filing'];
  readonly projections = [MANAGED_FILINGS_PROJECTION, MANAGED_FILING_HISTORY_PROJECTION];

  constructor(private readonly handler: CommandHandler, private readonly knex: Knex, private readonly now: () => Date = () => new Date()) {}

  async import(record: Record<string, unknown>, ctx: ImportContext): Promise<ImportOutcome> {
    if (record.filingMode === 'managed') throw new ImportRecordError('managed_filing: filingMode "managed" filings are created through the API; import "reference" or null');
    const r = Record_.safeParse(record);
    if (!r.success) throw new ImportRecordError(`managed_filing: ${describeIssues(r.error)}`);
    // What goes into the event must be storable in jsonb (no NUL, no unpaired surrogate): a bad line, not a failed import.
    assertStorableText(r.data);
    const { type: _t, scope, id, filingMode, ...rest } = r.data;
    const scopeRow = await this.knex('identity_scopes').where({ scope_id: scope.slice(3) }).first('tenant_id');
    if (!scopeRow) throw new ImportRecordError(`managed_filing: no such scope ${scope}`);
    try {
      const out = await this.handler.execute(
        managedFilingDecider,
        streamOf(id),
        { type: 'ImportFiling', filingId: id, scope, scopeId: scope.slice(3), tenantId: scopeRow.tenant_id, filingMode, fields: completeFields(rest), now: this.now().toISOString() },
        { metadata: { ...ctx.metadata, tenantId: scopeRow.tenant_id } },
      );
      if (!out.events.length) return { status: 'unchanged' };
      return { status: out.events[0].type === 'ManagedFilingCreated' ? 'created' : 'updated' };
    } catch (e) {
      if (e instanceof DomainError) throw new ImportRecordError(`managed_filing ${id}: ${e.message}`);
      throw e;
    }
  }
}
