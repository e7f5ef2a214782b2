import type { FileIngest } from '../../src/ports/file-ingest';
import type { ImportContext, ImportOutcome, RecordImporter } from '../import/record-importer';
import type { ClaimRule } from '../../src/ports/claim-rule';
import type { CatalogFilingFields } from '../../src/domain/events/catalog';
import type { BatchedAppends } from '../../src/ports/batched-appends';
import { catalogFilingDecider, type CatalogFilingCommand } from './catalog-filing';
import { parseCatalogFilingRecord } from './catalog-filing-record';
import { CATALOG_PROJECTION } from '../../src/read-models/catalog';


/** `catalog_filing` records: stores each FILE through FileIngest, then imports the filing as one event. */
export class CatalogFilingImporter implements RecordImporter {
  readonly types = ['catalog_filing'] as const;
  readonly projections = [CATALOG_PROJECTION] as const;

  constructor(
    private readonly ingest: FileIngest,
    private readonly appender: BatchedAppends,
    /** A file id belongs to one filing (file-claims.ts). */
    private readonly fileClaims: ClaimRule<CatalogFilingCommand>,
  ) {}

  /** Two lines listing one file id run in file order: the later one is the second claim, refused. */
  sequenceKeys(record: Record<string, unknown>): string[] {
    const files = record.files;
    if (!Array.isArray(files)) return [];
    const keys: string[] = [];
    for (const f of files as unknown[]) {
      const id = f && typeof f === 'object' ? (f as { fileId?: unknown }).fileId : undefined;
      if (typeof id === 'string') keys.push(`file:${id.toLowerCase()}`);
    }
    return keys;
  }

  /**
   * Not async, and the append continues in a callback that holds only the filing: an async function
   * keeps its arguments (the parsed line with its page texts) until it returns, which is after the
   * append batch, and with a thousand lines in flight that kept megabytes alive through scavenges.
   */
  import(record: Record<string, unknown>, ctx: ImportContext): Promise<ImportOutcome> {
    let parsed;
    try {
      parsed = parseCatalogFilingRecord(record);
    } catch (e) {
      return Promise.reject(e);
    }
    const { type: _type, files, ...fields } = parsed;
    const filing: CatalogFilingFields = fields;
    return Promise.all(files.map((f) => this.ingest.prepare(f, ctx.baseDir)))
      .then((prepared) => this.appender.submit(catalogFilingDecider, `catalogFiling-${filing.id}`, { type: 'ImportCatalogFiling', filing, files: prepared }, ctx.metadata, this.fileClaims))
      .then((r) => ({ status: r.status }));
  }
}
