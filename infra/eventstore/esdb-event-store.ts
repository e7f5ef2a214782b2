import crypto from 'node:crypto';
import {
  ANY,
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  NO_STREAM,
  START as ESDB_START,
  StreamNotFoundError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  type AllStreamResolvedEvent,
  type AllStreamSubscription,
  type AppendExpectedRevision,
  type JSONType,
  type ReadPosition,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { ExpectedVersionConflict } from '../../src/domain/errors';
import {
  START,
  comparePositions,
  type AppendResult,
  type EventMetadata,
  type ExpectedVersion,
  type LogPosition,
  type NewEvent,
  type RecordedEvent,
} from '../../src/domain/events';
import type { EventStore, ReadAllOptions, ReadAllResult } from '../../src/ports/event-store';

/** Our versions are 1-based stream lengths; ESDB revisions are 0-based event numbers. */
export function toExpectedRevision(v: ExpectedVersion): AppendExpectedRevision {
  if (v === 'any') return ANY;
  if (v === 0) return NO_STREAM;
  return BigInt(v - 1);
}

/** The metadata key that carries the event's schema version (ESDB has no field for it). */
const SCHEMA_VERSION_KEY = 'schemaVersion';

type EsdbRecorded = NonNullable<ResolvedEvent['event']>;

/** ESDB's own streams and events ($-prefixed) are not part of our log. */
function isSystem(e: EsdbRecorded): boolean {
  return e.type.startsWith('$') || e.streamId.startsWith('$');
}

function toRecorded(e: EsdbRecorded): RecordedEvent {
  const raw = (e.isJson && e.metadata && typeof e.metadata === 'object' && !(e.metadata instanceof Uint8Array) ? e.metadata : {}) as Record<string, unknown>;
  const { [SCHEMA_VERSION_KEY]: sv, ...metadata } = raw;
  const data = e.isJson ? e.data : Buffer.from(e.data as Uint8Array).toString('base64');
  return {
    eventId: e.id,
    streamId: e.streamId,
    version: Number(e.revision) + 1,
    type: e.type,
    schemaVersion: typeof sv === 'number' ? sv : 1,
    data,
    metadata: metadata as EventMetadata,
    position: e.position ? { commit: e.position.commit, prepare: e.position.prepare } : START,
    recordedAt: e.created,
  };
}

/**
 * The EventStore port on EventStoreDB. Streams map one to one; our version N is ESDB revision N-1
 * (0 = NO_STREAM, 'any' = ANY); positions are ESDB's (commit, prepare) pair. $all is written by a
 * single leader in commit order, so a reader never skips a late commit and the horizon is simply the
 * position of the last record read (system records included, so filtered readers still advance).
 */
export class EsdbEventStore implements EventStore {
  private readonly client: EventStoreDBClient;
  private subscription: AllStreamSubscription | null = null;
  private readonly listeners = new Set<() => void>();

  constructor(connectionString: string) {
    this.client = EventStoreDBClient.connectionString`${connectionString}`;
  }

  async append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const data = events.map((e) =>
      jsonEvent({
        id: crypto.randomUUID(),
        type: e.type,
        data: (e.data ?? {}) as JSONType,
        metadata: { ...(metadata ?? {}), [SCHEMA_VERSION_KEY]: e.schemaVersion ?? 1 } as JSONType,
      }),
    );
    try {
      const r = await this.client.appendToStream(streamId, data, { expectedRevision: toExpectedRevision(expectedVersion) });
      return { nextVersion: Number(r.nextExpectedRevision) + 1, position: r.position ? { commit: r.position.commit, prepare: r.position.prepare } : START };
    } catch (e) {
      if (e instanceof WrongExpectedVersionError) {
        const actual = e.actualVersion;
        throw new ExpectedVersionConflict(streamId, expectedVersion, typeof actual === 'bigint' ? Number(actual) + 1 : actual === NO_STREAM ? 0 : null);
      }
      throw e;
    }
  }

  async readStream(streamId: string, fromVersion = 1): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    try {
      for await (const r of this.client.readStream(streamId, { direction: FORWARDS, fromRevision: BigInt(Math.max(0, fromVersion - 1)) })) {
        if (r.event) out.push(toRecorded(r.event));
      }
    } catch (e) {
      if (e instanceof StreamNotFoundError) return [];
      throw e;
    }
    return out;
  }

  /** Reads raw $all records after `after` (ESDB reads from a position inclusively; that one is dropped). */
  private async readRaw(after: LogPosition, max: number): Promise<EsdbRecorded[]> {
    const from: ReadPosition = comparePositions(after, START) === 0 ? ESDB_START : { commit: after.commit, prepare: after.prepare };
    const out: EsdbRecorded[] = [];
    for await (const r of this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: max + 1 }) as AsyncIterable<AllStreamResolvedEvent>) {
      const e = r.event;
      if (!e?.position || comparePositions(e.position, after) <= 0) continue;
      out.push(e);
      if (out.length >= max) break;
    }
    return out;
  }

  /**
   * The node client has no server-side filter on reads (only on subscriptions), so types are filtered
   * here; the horizon still moves to the last record read, so a filtered reader keeps up.
   */
  async readAll(opts: ReadAllOptions): Promise<ReadAllResult> {
    const wanted = opts.types ? new Set(opts.types) : null;
    const events: RecordedEvent[] = [];
    let horizon = opts.after;
    // Page until `limit` matching events or the end of $all; bounded so one call stays short.
    for (let page = 0; page < 20 && events.length < opts.limit; page++) {
      const raw = await this.readRaw(horizon, Math.max(opts.limit, 500));
      for (const e of raw) {
        horizon = { commit: e.position!.commit, prepare: e.position!.prepare };
        if (!isSystem(e) && (!wanted || wanted.has(e.type))) events.push(toRecorded(e));
        if (events.length >= opts.limit) break;
      }
      if (raw.length < Math.max(opts.limit, 500)) break;
    }
    return { events, horizon };
  }

  async head(): Promise<LogPosition> {
    for await (const r of this.client.readAll({ direction: BACKWARDS, fromPosition: END, maxCount: 1 }) as AsyncIterable<AllStreamResolvedEvent>) {
      if (r.event?.position) return { commit: r.event.position.commit, prepare: r.event.position.prepare };
    }
    return START;
  }

  /** EventStoreDB shows committed events to subscribers at once: the same as head(). */
  lastCommitted(): Promise<LogPosition> {
    return this.head();
  }

  /** Counts our (non-system) events in (after, upTo], stopping at `cap` (lag only needs a bound). */
  async countBetween(after: LogPosition, upTo: LogPosition, cap: number): Promise<number> {
    let n = 0;
    let pos = after;
    while (n < cap) {
      const raw = await this.readRaw(pos, 1000);
      for (const e of raw) {
        if (comparePositions(e.position!, upTo) > 0) return n;
        if (!isSystem(e)) n++;
        pos = e.position!;
      }
      if (raw.length < 1000) break;
    }
    return Math.min(n, cap);
  }

  async onAppended(listener: () => void): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    if (!this.subscription) {
      const sub = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
      sub.on('data', () => this.listeners.forEach((l) => l()));
      // A dropped subscription only costs latency: subscribers also poll.
      sub.on('error', () => {
        if (this.subscription === sub) this.subscription = null;
      });
      this.subscription = sub;
    }
    return async () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0 && this.subscription) {
        const s = this.subscription;
        this.subscription = null;
        await s.unsubscribe().catch(() => undefined);
      }
    };
  }

  async close(): Promise<void> {
    this.listeners.clear();
    if (this.subscription) await this.subscription.unsubscribe().catch(() => undefined);
    this.subscription = null;
    await this.client.dispose();
  }
}
