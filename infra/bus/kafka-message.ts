import type { Message } from 'kafkajs';
import type { EventMetadata, RecordedEvent } from '../../src/domain/events';

/** Header names: consumers filter on the type without parsing the value. */
export const TYPE_HEADER = 'ifrs-type';
export const EVENT_ID_HEADER = 'ifrs-event-id';

/** The JSON value of a Kafka message: the full RecordedEvent, bigint positions and the date as strings. */
interface WireEvent {
  eventId: string;
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: EventMetadata;
  position: { commit: string; prepare: string };
  recordedAt: string;
}

/** Key = stream id: Kafka keeps per-key order within a partition, so a stream's events stay in order. */
export function toMessage(e: RecordedEvent): Message {
  const wire: WireEvent = {
    eventId: e.eventId,
    streamId: e.streamId,
    version: e.version,
    type: e.type,
    schemaVersion: e.schemaVersion,
    data: e.data,
    metadata: e.metadata,
    position: { commit: e.position.commit.toString(), prepare: e.position.prepare.toString() },
    recordedAt: e.recordedAt.toISOString(),
  };
  return {
    key: e.streamId,
    value: JSON.stringify(wire),
    timestamp: String(e.recordedAt.getTime()),
    headers: { [TYPE_HEADER]: e.type, [EVENT_ID_HEADER]: e.eventId },
  };
}

export function fromMessageValue(value: Buffer): RecordedEvent {
  const w = JSON.parse(value.toString('utf8')) as WireEvent;
  return {
    eventId: w.eventId,
    streamId: w.streamId,
    version: w.version,
    type: w.type,
    schemaVersion: w.schemaVersion,
    data: w.data,
    metadata: w.metadata,
    position: { commit: BigInt(w.position.commit), prepare: BigInt(w.position.prepare) },
    recordedAt: new Date(w.recordedAt),
  };
}

/** The type header, or null for a message this service did not write. */
export function messageType(headers: Message['headers'] | undefined): string | null {
  const h = headers?.[TYPE_HEADER];
  if (h === undefined || h === null) return null;
  return Array.isArray(h) ? String(h[0]) : h.toString();
}
