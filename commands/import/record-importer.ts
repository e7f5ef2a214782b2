import type { EventMetadata } from '../../src/domain/events';

/** What an importer reports for one line. */
export type ImportOutcome = { status: 'created' | 'updated' | 'unchanged' };

export interface ImportContext {
  /** Directory of the JSONL file: `content.path` of files is relative to it. */
  baseDir: string;
  metadata: EventMetadata;
  line: number;
}

/**
 * Imports one record type of OPERATIONS.md: validates the record (throwing ImportRecordError with a
 * reason for a bad line) and appends events: none when nothing changed, an update when something did.
 * Importers are bound in the container under TOKENS.RecordImporter; `ifrs import` dispatches on `type`.
 */
export interface RecordImporter {
  readonly types: readonly string[];
  import(record: Record<string, unknown>, ctx: ImportContext): Promise<ImportOutcome>;
  /** Projections an `--wait` import must see caught up for this record type. */
  readonly projections: readonly string[];
  /**
   * Optional: keys besides the record's own type and id that order it after earlier lines naming the
   * same key (a catalog filing's file ids), so which of two records claiming one key wins is decided
   * by file order, not by which finished its file work first. Reads the raw line; must not throw.
   */
  sequenceKeys?(record: Record<string, unknown>): string[];
}
