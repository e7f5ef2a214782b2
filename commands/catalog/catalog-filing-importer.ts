import type { FileIngest } from '../../src/ports/file-ingest';
import type { ImportContext, ImportOutcome, RecordImporter } from '../import/record-importer';
import type { BatchedAppender } from '../import/batched-appender';
import type { CatalogFilingFields } from './catalog-events';
import { catalogFilingDecider } from './catalog-filing';
import { parseCatalogFilingRecord } from './catalog-filing-record';

export const CATALOG_PROJECTION = 'catalog';

/** `catalog_filing` records: stores each FILE through FileIngest, then imports the filing as one event. */
export class CatalogFilingImporter implements RecordImporter {
  readonly types = ['catalog_filing'] as const;
  readonly projections = [CATALOG_PROJECTION] as const;

  constructor(private readonly ingest: FileIngest, private readonly appender: BatchedAppender) {}

  async import(record: Record<string, unknown>, ctx: ImportContext): Promise<ImportOutcome> {
    const { type: _type, files, ...fields } = parseCatalogFilingRecord(record);
    const filing: CatalogFilingFields = fields;
    const prepared = await Promise.all(files.map((f) => this.ingest.prepare(f, ctx.baseDir)));
    const r = await this.appender.submit(catalogFilingDecider, `catalogFiling-${filing.id}`, { type: 'ImportCatalogFiling', filing, files: prepared }, ctx.metadata);
    return { status: r.status };
  }
}
