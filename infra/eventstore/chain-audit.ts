import type { Knex } from 'knex';
import { ChainVerifier, type ChainVerdict } from '../../src/domain/event-hash';
import type { EventStore } from './event-store';

/** One stream's chain, checked against its stream record where the store keeps one. */
export async function verifyStream(store: EventStore, streamId: string): Promise<ChainVerdict> {
  const [events, head] = await Promise.all([store.readStream(streamId), store.streamHead ? store.streamHead(streamId) : Promise.resolve(null)]);
  const v = new ChainVerifier();
  for (const e of events) if (!v.push(e)) break;
  return v.verdict(head ?? undefined);
}

/** Which streams `audit verify` reads: one, a category (`<category>-*`), or all. */
export type ChainScope = { stream: string } | { category: string } | { all: true };

export interface StreamVerdict extends ChainVerdict {
  streamId: string;
}

function scopeWhere(scope: ChainScope, column: string): { sql: string; values: string[] } {
  if ('stream' in scope) return { sql: `${column} = ?`, values: [scope.stream] };
  if ('category' in scope) {
    // Stream ids are `<category>-<id>`: a range on the primary key, not a LIKE that needs escaping.
    return { sql: `${column} >= ? and ${column} < ?`, values: [`${scope.category}-`, `${scope.category}.`] };
  }
  return { sql: 'true', values: [] };
}

/** Events the scope holds (the stream records' versions): the progress bar's total. */
export async function countScope(knex: Knex, scope: ChainScope): Promise<number> {
  const w = scopeWhere(scope, 'stream_id');
  const [r] = (await knex.raw(`select coalesce(sum(version), 0)::bigint as n from es_streams where ${w.sql}`, w.values)).rows as { n: string }[];
  return Number(r.n);
}

const STREAMS_PER_PAGE = 500;

interface VerifiedRow {
  stream_id: string;
  version: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  hash: string | null;
  prev_hash: string | null;
  recorded_at: string;
}
const EVENTS_PER_PAGE = 20_000;

interface Row {
  stream_id: string;
  version: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

/**
 * Recomputes the chains of every stream in `scope` on Postgres: stream records in key order, their
 * events in (stream, version) pages, so memory stays bounded whatever a stream's length. Calls
 * `onEvents` with the number of events read, and `onStream` with each stream's verdict.
 */
export async function verifyChains(knex: Knex, scope: ChainScope, onStream: (v: StreamVerdict) => void, onEvents: (n: number) => void = () => undefined): Promise<void> {
  const w = scopeWhere(scope, 'stream_id');
  let afterStream = '';
  for (;;) {
    const streams = (
      await knex.raw(`select stream_id, version, head_hash from es_streams where ${w.sql} and stream_id > ? order by stream_id limit ?`, [...w.values, afterStream, STREAMS_PER_PAGE])
    ).rows as { stream_id: string; version: string; head_hash: string | null }[];
    if (!streams.length) return;
    const last = streams[streams.length - 1].stream_id;
    const heads = new Map(streams.map((s) => [s.stream_id, { version: Number(s.version), headHash: s.head_hash }]));
    let current = null as { id: string; v: ChainVerifier } | null;
    const done = new Set<string>();
    const finish = () => {
      if (!current) return;
      onStream({ streamId: current.id, ...current.v.verdict(heads.get(current.id)) });
      done.add(current.id);
    };
    const page = async (after: [string, number]) =>
      (
        await knex.raw(
          // The hashes apart and the time as the ISO text the hash covers: no per-event copy or Date in node.
          `select stream_id, version, type, schema_version, data, metadata - 'hash' - 'prevHash' as metadata,
             metadata->>'hash' as hash, metadata->>'prevHash' as prev_hash,
             to_char(recorded_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as recorded_at
           from es_events
           where (stream_id, version) > (?, ?) and stream_id <= ? and ${w.sql} order by stream_id, version limit ?`,
          [after[0], after[1], last, ...w.values, EVENTS_PER_PAGE],
        )
      ).rows as VerifiedRow[];
    // The next page is read while this one is hashed: the database's work and node's overlap.
    let pending: Promise<VerifiedRow[]> | null = page([streams[0].stream_id, 0]);
    while (pending) {
      const rows: VerifiedRow[] = await pending;
      const l = rows[rows.length - 1];
      pending = rows.length < EVENTS_PER_PAGE ? null : page([l.stream_id, Number(l.version)]);
      for (const r of rows) {
        if (current?.id !== r.stream_id) {
          finish();
          current = { id: r.stream_id, v: new ChainVerifier() };
        }
        current.v.pushSplit({ streamId: r.stream_id, version: Number(r.version), type: r.type, schemaVersion: r.schema_version, data: r.data, metadata: r.metadata, hash: r.hash, prevHash: r.prev_hash, recordedAt: r.recorded_at });
      }
      onEvents(rows.length);
    }
    finish();
    // A stream record whose events are all gone: its chain is broken from the first version.
    for (const s of streams) if (!done.has(s.stream_id) && Number(s.version) > 0) onStream({ streamId: s.stream_id, version: Number(s.version), headHash: null, verified: false, firstBrokenVersion: 1 });
    afterStream = last;
  }
}

/** An event as `ifrs events export` writes it: everything the hash covers, the hashes in `metadata`. */
export interface ExportedEvent {
  streamId: string;
  version: number;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recordedAt: string;
  eventId: string;
}

/** The scope's events in (stream, version) order, a page at a time (Postgres). */
export async function* readScope(knex: Knex, scope: ChainScope, pageSize = 5000): AsyncGenerator<ExportedEvent[]> {
  const w = scopeWhere(scope, 'stream_id');
  let after: [string, number] = ['', 0];
  for (;;) {
    const rows = (
      await knex.raw(
        `select event_id, stream_id, version, type, schema_version, data, metadata, recorded_at from es_events
         where (stream_id, version) > (?, ?) and ${w.sql} order by stream_id, version limit ?`,
        [after[0], after[1], ...w.values, pageSize],
      )
    ).rows as (Row & { event_id: string })[];
    if (!rows.length) return;
    yield rows.map((r) => ({ streamId: r.stream_id, version: Number(r.version), type: r.type, schemaVersion: r.schema_version, data: r.data, metadata: r.metadata, recordedAt: r.recorded_at.toISOString(), eventId: r.event_id }));
    const l = rows[rows.length - 1];
    after = [l.stream_id, Number(l.version)];
  }
}

/** Verifies exported events (any order of streams; each stream's events in version order). */
export class ExportVerifier {
  private readonly streams = new Map<string, ChainVerifier>();
  events = 0;

  push(e: ExportedEvent): void {
    this.events++;
    let v = this.streams.get(e.streamId);
    if (!v) this.streams.set(e.streamId, (v = new ChainVerifier()));
    v.push(e);
  }

  verdicts(): StreamVerdict[] {
    return [...this.streams].map(([streamId, v]) => ({ streamId, ...v.verdict() }));
  }
}
