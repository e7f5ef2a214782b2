import type { CarrierGroupRecord, CarrierRecord, MgaRecord, ProductRecord } from '../directory-records';

/**
 * Directory events: each carries the whole imported record ("Imported" once, "Updated" when a re-import
 * differs; commands/directory/snapshot-decider.ts decides which).
 */
export type SnapshotEvent<I extends string, U extends string, R> = { type: I; data: R } | { type: U; data: R };

/** Stream `carrierGroup-<id>`. */
export type CarrierGroupEvent = SnapshotEvent<'CarrierGroupImported', 'CarrierGroupUpdated', CarrierGroupRecord>;
export const CARRIER_GROUP_EVENT_TYPES: CarrierGroupEvent['type'][] = ['CarrierGroupImported', 'CarrierGroupUpdated'];

/** Stream `carrier-<id>`. */
export type CarrierEvent = SnapshotEvent<'CarrierImported', 'CarrierUpdated', CarrierRecord>;
export const CARRIER_EVENT_TYPES: CarrierEvent['type'][] = ['CarrierImported', 'CarrierUpdated'];

/** Stream `mga-<id>`. */
export type MgaEvent = SnapshotEvent<'MgaImported', 'MgaUpdated', MgaRecord>;
export const MGA_EVENT_TYPES: MgaEvent['type'][] = ['MgaImported', 'MgaUpdated'];

/** Stream `product-<id>`. */
export type ProductEvent = SnapshotEvent<'ProductImported', 'ProductUpdated', ProductRecord>;
export const PRODUCT_EVENT_TYPES: ProductEvent['type'][] = ['ProductImported', 'ProductUpdated'];

export type DirectoryEvent = CarrierGroupEvent | CarrierEvent | MgaEvent | ProductEvent;
