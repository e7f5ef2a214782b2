import type { CarrierGroupRecord, CarrierRecord, MgaRecord, ProductRecord } from '../directory-records';

/**
 * Directory events: each carries the whole imported record ("Imported" once, "Updated" when a re-import
 * differs; commands/directory/snapshot-decider.ts decides which).
 */
export type SnapshotEvent<I extends string, U extends string, R> = { type: I; data: R } | { type: U; data: R };

/** Stream `carrierGroup-<id>`. */
export type CarrierGroupEvent = SnapshotEvent<'CarrierGroupImported', 'CarrierGroupUpdated', CarrierGroupRecord>;

/** Stream `carrier-<id>`. */
export type CarrierEvent = SnapshotEvent<'CarrierImported', 'CarrierUpdated', CarrierRecord>;

/** Stream `mga-<id>`. */
export type MgaEvent = SnapshotEvent<'MgaImported', 'MgaUpdated', MgaRecord>;

/** Stream `product-<id>`. */
export type ProductEvent = SnapshotEvent<'ProductImported', 'ProductUpdated', ProductRecord>;

export type DirectoryEvent = CarrierGroupEvent | CarrierEvent | MgaEvent | ProductEvent;
