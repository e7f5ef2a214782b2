import { LRUCache } from 'lru-cache';
import type { EventStore } from '../../infra/eventstore/event-store';
import { invalidRequest, notFound } from '../../src/domain/errors';
import type { RecordedEvent } from '../../src/domain/events';
import { evolveManagedFiling, initialManagedFilingState, type ManagedFilingEvent, type ManagedFilingState } from '../../src/domain/managed-filing-state';
import { qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';

/**
 * The auditors' reads (issue 23): a working filing as it stood, rebuilt from its event stream by the
 * decider's own evolve (src/domain/managed-filing-state.ts), never from the read models, so it cannot
 * disagree with what the commands decided on. The one place queries/ read the event store: the point
 * is the log itself.
 */

/** `asOf` and `atVersion`, added to the detail, items and comments queries. */
export const pointInTimeParams = {
  asOf: qScalar(z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date-time with a time zone (2026-11-27T23:00:00Z).' }), {
    type: 'string',
    format: 'date-time',
    description: 'Extension: the answer as it stood at this moment (rebuilt from the event log). Not with atVersion.',
    example: '2026-01-31T17:00:00Z',
  }).optional(),
  atVersion: qScalar(
    z
      .string()
      .regex(/^-?\d+$/, 'Must be an integer.')
      .transform((s) => Number(s))
      .pipe(z.number().int().min(1, 'Must be at least 1.').max(2_147_483_647, 'Must be at most 2147483647.')),
    {
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
      description: 'Extension: the answer as it stood after this stream version (the latest when the filing has not reached it). Not with asOf.',
      example: 3,
    },
  ).optional(),
};

export type PointInTime = { asOf: Date } | { atVersion: number };

/** The point asked for, if any; 400 when both are given. */
export function pointInTime(q: { asOf?: string; atVersion?: number }): PointInTime | null {
  if (q.asOf !== undefined && q.atVersion !== undefined) {
    throw invalidRequest('Give asOf or atVersion, not both.', [{ location: 'query', path: ['atVersion'], code: 'invalid_value', message: 'Not together with asOf.' }]);
  }
  if (q.asOf !== undefined) return { asOf: new Date(q.asOf) };
  if (q.atVersion !== undefined) return { atVersion: q.atVersion };
  return null;
}

/** The binding a cursor of a point-in-time page keeps (so a cursor never moves between points). */
export function pointKey(p: PointInTime | null): string | null {
  if (!p) return null;
  return 'asOf' in p ? `t:${p.asOf.toISOString()}` : `v:${p.atVersion}`;
}

export interface FilingAt {
  state: ManagedFilingState;
  /** The stream version the state reflects. */
  version: number;
}

export const filingStream = (filingId: string) => `managedFiling-${filingId}`;

/** The events of a point: a prefix of the stream (the first event recorded after `asOf` ends it). */
export function eventsUpTo(events: RecordedEvent[], p: PointInTime): RecordedEvent[] {
  const out: RecordedEvent[] = [];
  for (const e of events) {
    if ('asOf' in p ? e.recordedAt.getTime() > p.asOf.getTime() : e.version > p.atVersion) break;
    out.push(e);
  }
  return out;
}

export function foldFiling(events: RecordedEvent[]): FilingAt {
  let state = initialManagedFilingState();
  let version = 0;
  for (const e of events) {
    state = evolveManagedFiling(state, e as unknown as ManagedFilingEvent);
    version = e.version;
  }
  return { state, version };
}

/**
 * A stream's fold at `version`, with the latest recorded time of the events folded (a point in time
 * reaches it only if every one of them came before: eventsUpTo stops at the first event after it).
 */
interface Snapshot extends FilingAt {
  latestRecordedAt: number;
}

/** Snapshots are taken every this many versions as a point-in-time read folds past them. */
const SNAPSHOT_EVERY = 500;

export class FilingHistory {
  /**
   * In-memory snapshots by stream, oldest first. A snapshot is a fact (committed events never change and
   * evolve builds new states), so it stays true; bounded by count across streams.
   */
  private readonly snapshots = new LRUCache<string, Snapshot[]>({ maxSize: 2_000, sizeCalculation: (s) => Math.max(1, s.length) });

  constructor(
    private readonly store: EventStore,
    private readonly snapshotEvery = SNAPSHOT_EVERY,
  ) {}

  events(filingId: string): Promise<RecordedEvent[]> {
    return this.store.readStream(filingStream(filingId));
  }

  /**
   * The filing at `p`; 404 before it existed. A version it has not reached answers the latest state, as
   * a moment still to come does: `version` says which one it is. Folded from the latest snapshot at or
   * before `p`, so a long stream costs the events between them.
   */
  async at(filingId: string, p: PointInTime): Promise<FilingAt> {
    const stream = filingStream(filingId);
    const known = this.snapshots.get(stream) ?? [];
    const reaches = (s: Snapshot) => ('asOf' in p ? s.latestRecordedAt <= p.asOf.getTime() : s.version <= p.atVersion);
    let from: Snapshot | undefined;
    for (let i = known.length - 1; i >= 0 && !from; i--) if (reaches(known[i])) from = known[i];
    let state = from?.state ?? initialManagedFilingState();
    let version = from?.version ?? 0;
    let latest = from?.latestRecordedAt ?? -Infinity;
    const taken: Snapshot[] = [];
    const newest = known[known.length - 1]?.version ?? 0;
    // A page at a time, up to the point: a point in the middle of a long stream does not read its end.
    for (let page = this.snapshotEvery; ; ) {
      const read = await this.store.readStream(stream, version + 1, page);
      const events = eventsUpTo(read, p);
      for (const e of events) {
        state = evolveManagedFiling(state, e as unknown as ManagedFilingEvent);
        version = e.version;
        latest = Math.max(latest, e.recordedAt.getTime());
        if (version % this.snapshotEvery === 0 && version > newest) taken.push({ state, version, latestRecordedAt: latest });
      }
      if (events.length < read.length || read.length < page) break;
      page = Math.min(page * 2, 8 * this.snapshotEvery);
    }
    if (taken.length) this.snapshots.set(stream, [...known, ...taken]);
    if (!state.exists) throw notFound('The filing did not exist at that point.');
    return { state, version };
  }
}

/**
 * One page of a list rebuilt from the state, in the live list's order (createdAt, then id ascending),
 * continuing after the cursor's `{c, i}` as the live lists do.
 */
export function pageAt<T extends { id: string; createdAt: string }>(rows: T[], order: 'asc' | 'desc', limit: number, after?: { c: string; i: string }) {
  const t = (r: { createdAt: string }) => new Date(r.createdAt).getTime();
  const dir = order === 'asc' ? 1 : -1;
  const sorted = [...rows].sort((a, b) => (t(a) - t(b)) * dir || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const from = after ? sorted.filter((r) => (t(r) - new Date(after.c).getTime()) * dir > 0 || (t(r) === new Date(after.c).getTime() && r.id > after.i)) : sorted;
  const page = from.slice(0, limit);
  const last = page[page.length - 1];
  return { page, next: from.length > limit ? { c: new Date(last.createdAt).toISOString(), i: last.id } : null };
}
