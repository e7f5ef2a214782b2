import { UpcasterRegistry, type Upcaster } from './upcasting';

/**
 * The upcasters of the service's events (src/domain/upcasting.ts). None yet: every event type is at
 * schema version 1. A change to an event's data shape adds `{ type, from: n, up }` here (typed by its
 * category's union, `Upcaster<CategoryEvent>`), changes the union to the new shape, and leaves the log
 * as it is.
 */
const UPCASTERS: readonly Upcaster[] = [];

export const EVENT_UPCASTERS = new UpcasterRegistry(UPCASTERS);
