import type { Knex } from 'knex';
import type { AppendResult, EventMetadata, ExpectedVersion, LogPosition, NewEvent, RecordedEvent } from '../../src/domain/events';
import { comparePositions } from '../../src/domain/events';
import type { AppendGuard, EventStore, GuardedAppendResult, ReadAllOptions, ReadAllResult } from '../../src/ports/event-store';
import { appendEvents, appendEventsGuarded } from './postgres-append';
import { runStatement } from '../postgres/prepared';

interface EventRow {
  global_position: number;
  tx: string;
  event_id: string;
  stream_id: string;
  version: number;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: EventMetadata;
  recorded_at: Date;
}

const COLUMNS = `global_position, transaction_id::text as tx, event_id, stream_id, version, type, schema_version, data, metadata, recorded_at`;

/**
 * One statement, so the events and the horizon come from the same snapshot: nothing at or below the
 * horizon can become visible later, because every transaction below xmin has ended. `$1`, `$2` the
 * position to read after, `$3` the limit, `$4` the event types (only in the filtered form).
 */
function readAllSql(typeFilter: string): string {
  // The snapshot bound as an InitPlan, not a joined CTE: joined, the planner lost the index order and
  // sorted every event after the checkpoint to return one page, so a rebuild's pages cost O(log) each
  // instead of O(page). One statement: both reads share the statement's snapshot.
  return `
    with ev as (
      select ${COLUMNS} from es_events
      where (transaction_id, global_position) > ($1::xid8, $2::bigint)
        and transaction_id < (select pg_snapshot_xmin(pg_current_snapshot())) ${typeFilter}
      order by transaction_id, global_position limit $3::bigint
    ),
    hz as (
      select transaction_id::text as tx, global_position from es_events
      where transaction_id < (select pg_snapshot_xmin(pg_current_snapshot())) order by transaction_id desc, global_position desc limit 1
    )
    select 'e' as kind, ev.* from ev
    union all
    select 'h', hz.global_position, hz.tx, null, null, null, null, null, null, null, null from hz`;
}

/** Prepared once per connection: single-row look-ups and index range scans, whatever the parameters. */
const PREPARED = {
  readStream: { name: 'es_read_stream', text: `select ${COLUMNS} from es_events where stream_id = $1 and version >= $2 order by version` },
  streamVersion: { name: 'es_stream_version', text: `select version from es_streams where stream_id = $1` },
  lastCommitted: { name: 'es_last_committed', text: `select transaction_id::text as tx, global_position from es_events order by transaction_id desc, global_position desc limit 1` },
  head: {
    name: 'es_head',
    text: `select transaction_id::text as tx, global_position from es_events
      where transaction_id < pg_snapshot_xmin(pg_current_snapshot())
      order by transaction_id desc, global_position desc limit 1`,
  },
  countBetween: {
    name: 'es_count_between',
    text: `select count(*)::bigint as n from (select 1 from es_events
      where (transaction_id, global_position) > ($1::xid8, $2::bigint)
        and (transaction_id, global_position) <= ($3::xid8, $4::bigint) limit $5::bigint) c`,
  },
  maxPosition: { name: 'es_max_position', text: `select coalesce(max(global_position), 0) as p from es_events` },
};

/**
 * Named, so prepared once per connection. Planning was most of a tailing read's cost (about 0.25 ms against
 * 0.1 ms to run) and every subscriber tails the log several times a second. Postgres keeps choosing
 * between custom and generic plans; the generic plan walks the (transaction_id, global_position) index and
 * filters by type, which is the right plan for a tail and, for a rebuild of a rare type, costs one pass
 * over the log in all (each page goes on where the last stopped). The type index that a custom plan could
 * have used instead is dropped (migration 008): no read used it, and every append paid for it.
 */
const READ_ALL = { name: 'es_read_all', text: readAllSql('') };
const READ_ALL_OF_TYPES = { name: 'es_read_all_of_types', text: readAllSql('and type = any($4::text[])') };

export function toRecorded(r: EventRow): RecordedEvent {
  return {
    eventId: r.event_id,
    streamId: r.stream_id,
    version: Number(r.version),
    type: r.type,
    schemaVersion: r.schema_version,
    data: r.data,
    metadata: r.metadata,
    position: { commit: BigInt(r.tx), prepare: BigInt(r.global_position) },
    recordedAt: r.recorded_at,
  };
}

/**
 * Event store on Postgres. An append is one prepared statement (see postgres-append.ts): the stream
 * row is moved from the expected version first, then the events are inserted stamped with the
 * transaction id. Subscribers read below pg_snapshot_xmin (see readAll).
 */
export class PostgresEventStore implements EventStore {
  private watcher: NodeJS.Timeout | null = null;
  private watching = false;
  private watchGeneration = 0;
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly knex: Knex,
    private readonly pollMs = 50,
  ) {}

  async append(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata): Promise<AppendResult> {
    return this.appendWith(this.knex, streamId, events, expectedVersion, metadata);
  }

  async appendGuarded(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata, guard: AppendGuard): Promise<GuardedAppendResult> {
    return appendEventsGuarded(this.knex, streamId, events, expectedVersion, metadata, guard);
  }

  /** The same append inside a caller's transaction (bulk import appends many streams in one). */
  async appendWith(
    db: Knex | Knex.Transaction,
    streamId: string,
    events: NewEvent[],
    expectedVersion: ExpectedVersion,
    metadata: EventMetadata,
  ): Promise<AppendResult> {
    return appendEvents(db, streamId, events, expectedVersion, metadata);
  }

  async readStream(streamId: string, fromVersion = 1): Promise<RecordedEvent[]> {
    const rows = await runStatement<EventRow>(this.knex, { ...PREPARED.readStream, values: [streamId, fromVersion] });
    return rows.map(toRecorded);
  }

  async streamVersion(streamId: string): Promise<number> {
    const rows = await runStatement<{ version: number }>(this.knex, { ...PREPARED.streamVersion, values: [streamId] });
    return rows[0] ? Number(rows[0].version) : 0;
  }

  /** Events after a position in global order, and how far a subscriber may move (see readAllSql). */
  async readAll(opts: ReadAllOptions, db: Knex | Knex.Transaction = this.knex): Promise<ReadAllResult> {
    const values: unknown[] = [opts.after.commit.toString(), opts.after.prepare.toString(), opts.limit];
    if (opts.types) values.push(opts.types);
    const rows = await runStatement<EventRow & { kind: string }>(db, { ...(opts.types ? READ_ALL_OF_TYPES : READ_ALL), values });
    const events: RecordedEvent[] = [];
    let hz: LogPosition | null = null;
    for (const r of rows) {
      if (r.kind === 'e') events.push(toRecorded(r));
      else hz = { commit: BigInt(r.tx), prepare: BigInt(r.global_position) };
    }
    let horizon: LogPosition;
    if (events.length >= opts.limit) horizon = events[events.length - 1].position;
    else horizon = hz && comparePositions(hz, opts.after) > 0 ? hz : opts.after;
    return { events, horizon };
  }

  async lastCommitted(): Promise<LogPosition> {
    const [r] = await runStatement<{ tx: string; global_position: number }>(this.knex, { ...PREPARED.lastCommitted, values: [] });
    return r ? { commit: BigInt(r.tx), prepare: BigInt(r.global_position) } : { commit: 0n, prepare: 0n };
  }

  async head(): Promise<LogPosition> {
    const [r] = await runStatement<{ tx: string; global_position: number }>(this.knex, { ...PREPARED.head, values: [] });
    return r ? { commit: BigInt(r.tx), prepare: BigInt(r.global_position) } : { commit: 0n, prepare: 0n };
  }

  /** Range count on the (transaction_id, global_position) index; the log has no gaps in that order. */
  async countBetween(after: LogPosition, upTo: LogPosition, cap: number): Promise<number> {
    const [r] = await runStatement<{ n: number }>(this.knex, {
      ...PREPARED.countBetween,
      values: [after.commit.toString(), after.prepare.toString(), upTo.commit.toString(), upTo.prepare.toString(), cap],
    });
    return Number(r.n);
  }

  /**
   * Wakes subscribers when the log grows, by watching its highest position (one backward index probe
   * `pollMs` after the last one answered, only while someone listens). Not LISTEN/NOTIFY: a notifying transaction takes a
   * global lock at commit, which serialised concurrent appends (16 writers: about 1,700 appends/s with a
   * NOTIFY trigger, about 3,000 without). Writers in this process wake their projectors directly.
   */
  async onAppended(listener: () => void): Promise<() => Promise<void>> {
    this.listeners.add(listener);
    if (!this.watching) {
      this.watching = true;
      // A loop outlives a stop only until its probe answers; one started later has its own generation.
      const generation = ++this.watchGeneration;
      const current = () => this.watching && this.watchGeneration === generation;
      let last: number | null = null;
      const tick = async () => {
        try {
          const [r] = await runStatement<{ p: number }>(this.knex, { ...PREPARED.maxPosition, values: [] });
          const p = Number(r.p);
          if (last !== null && p !== last) this.listeners.forEach((l) => l());
          last = p;
        } catch {
          // The database is away: subscribers retry on their own; keep watching.
        }
      };
      // The next probe is scheduled when the last one has answered, never on a fixed interval: with the
      // pool busy or the database slow, interval probes queued up behind each other (20 a second) until
      // they exhausted the pool and timed out acquiring connections.
      const loop = async () => {
        if (!current()) return;
        await tick();
        if (current()) {
          this.watcher = setTimeout(() => void loop(), this.pollMs);
          this.watcher.unref();
        }
      };
      await loop();
    }
    return async () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopWatching();
    };
  }

  private stopWatching(): void {
    this.watching = false;
    if (this.watcher) clearTimeout(this.watcher);
    this.watcher = null;
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.stopWatching();
  }
}
