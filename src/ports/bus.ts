import type { RecordedEvent } from '../domain/events';

export interface Consumer {
  stop(): Promise<void>;
}

/**
 * Committed events to side-effecting consumers (the indexing worker, integration relays), at least
 * once, in log order per stream. Consumers must be idempotent (dedupe on event id or stream state).
 * A consumer group processes each event once in effect even with several processes in the group.
 */
export interface Bus {
  consume(group: string, types: readonly string[], handler: (events: RecordedEvent[]) => Promise<void>): Promise<Consumer>;
  close(): Promise<void>;
}

/** Feeds the bus from the event store where the bus is a separate system (Kafka). One active per deployment. */
export interface BusRelay {
  start(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A long-running bus consumer (e.g. the indexing worker). Features bind them under TOKENS.BusWorker;
 * the `indexer` and `all` roles start every bound worker.
 */
export interface BusWorker {
  name: string;
  start(bus: Bus): Promise<Consumer>;
}
