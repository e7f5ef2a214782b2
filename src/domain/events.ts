/** Who and why: carried on every event, never part of the decision. */
export interface EventMetadata {
  tenantId?: string | null;
  actor?: string | null;
  requestId?: string | null;
  correlationId?: string | null;
  causationId?: string | null;
  [key: string]: unknown;
}

/** An event as a decider produces it. */
export interface NewEvent<T extends string = string, D = unknown> {
  type: T;
  data: D;
  schemaVersion?: number;
}

/**
 * A place in the global log. For Postgres: (appending transaction id, global position), compared
 * lexicographically; for EventStoreDB: (commit, prepare). `position` is what the API shows.
 */
export interface LogPosition {
  commit: bigint;
  prepare: bigint;
}

export const START: LogPosition = { commit: 0n, prepare: 0n };

export function comparePositions(a: LogPosition, b: LogPosition): number {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return 0;
}

export function maxPosition(a: LogPosition, b: LogPosition): LogPosition {
  return comparePositions(a, b) >= 0 ? a : b;
}

export function positionToString(p: LogPosition): string {
  return `${p.commit}:${p.prepare}`;
}

export function positionFromString(s: string): LogPosition {
  const [c, p] = s.split(':');
  return { commit: BigInt(c), prepare: BigInt(p) };
}

export interface RecordedEvent<T extends string = string, D = unknown> {
  eventId: string;
  streamId: string;
  /** 1-based: the stream's version after this event. */
  version: number;
  type: T;
  schemaVersion: number;
  data: D;
  metadata: EventMetadata;
  position: LogPosition;
  recordedAt: Date;
}

/** Expected stream version: a number (0 = the stream must not exist yet) or 'any'. */
export type ExpectedVersion = number | 'any';

export interface AppendResult {
  nextVersion: number;
  position: LogPosition;
}

export function streamCategory(streamId: string): string {
  const i = streamId.indexOf('-');
  return i < 0 ? streamId : streamId.slice(0, i);
}

/**
 * A recorded event of a union of events as deciders produce them (`{ type; data }` members): the
 * recorded form keeps `type` discriminating `data`, which `RecordedEvent<string, unknown>` cannot.
 */
export type Recorded<E extends NewEvent> = E extends NewEvent ? RecordedEvent<E['type'], E['data']> : never;
