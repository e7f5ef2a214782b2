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
