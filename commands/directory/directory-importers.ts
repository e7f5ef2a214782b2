import type { z } from 'zod';
import type { Decider } from '../../src/domain/decider';
import type { NewEvent } from '../../src/domain/events';
import type { BatchedAppends } from '../../src/ports/batched-appends';
import type { ImportContext, ImportOutcome, RecordImporter } from '../import/record-importer';
import { assertStorableText, parseRecord } from '../import/record-schema';
import { carrierDecider } from './carrier';
import { carrierGroupDecider } from './carrier-group';
import { carrierGroupRecord, carrierRecord, mgaRecord, productRecord } from './directory-record-schemas';
import { mgaDecider } from './mga';
import { productDecider } from './product';
import type { ImportRecord, SnapshotState } from './snapshot-decider';
import { DIRECTORY_PROJECTION } from '../../src/read-models/directory';

/** One directory record type: validate with its schema, decide with its aggregate, stream `<category>-<id>`. */
export class DirectoryRecordImporter<R extends { id: string }> implements RecordImporter {
  readonly types: readonly string[];
  readonly projections = [DIRECTORY_PROJECTION] as const;

  constructor(
    type: string,
    private readonly category: string,
    private readonly schema: z.ZodType<R>,
    private readonly decider: Decider<SnapshotState<R>, ImportRecord<R>, NewEvent>,
    private readonly appender: BatchedAppends,
  ) {
    this.types = [type];
  }

  async import(record: Record<string, unknown>, ctx: ImportContext): Promise<ImportOutcome> {
    const r = parseRecord(this.schema, record);
    // What goes into the event must be storable in jsonb (no NUL, no unpaired surrogate): a bad line, not a failed import.
    assertStorableText(r);
    const out = await this.appender.submit(this.decider, `${this.category}-${r.id}`, { type: 'Import', record: r }, ctx.metadata);
    return { status: out.status };
  }
}

/** One factory per directory record type; the container binds each under TOKENS.RecordImporter. */
export const DIRECTORY_IMPORTERS: ((appender: BatchedAppends) => RecordImporter)[] = [
  (a) => new DirectoryRecordImporter('carrier_group', 'carrierGroup', carrierGroupRecord, carrierGroupDecider as never, a),
  (a) => new DirectoryRecordImporter('carrier', 'carrier', carrierRecord, carrierDecider as never, a),
  (a) => new DirectoryRecordImporter('mga', 'mga', mgaRecord, mgaDecider as never, a),
  (a) => new DirectoryRecordImporter('product', 'product', productRecord, productDecider as never, a),
];
