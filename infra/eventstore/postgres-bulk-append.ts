import { timeOrderedUuid } from './time-ordered-uuid';
import type { Knex } from 'knex';
import { ExpectedVersionConflict } from '../../src/domain/errors';
import type { EventMetadata, LogPosition, NewEvent } from '../../src/domain/events';
import { eventHash, withoutHashes } from '../../src/domain/event-hash';

async function streamHeads(trx: Knex.Transaction, streamIds: string[]): Promise<Map<string, string | null>> {
  if (!streamIds.length) return new Map();
  const rows = (await trx.raw(`select stream_id, head_hash from es_streams where stream_id = any(?)`, [streamIds] as never)).rows as { stream_id: string; head_hash: string | null }[];
  return new Map(rows.map((r) => [r.stream_id, r.head_hash]));
}

export interface StreamAppend {
  streamId: string;
  /** The stream's version before these events (0: the stream must not exist yet). */
  expected: number;
  events: { event: NewEvent; metadata: EventMetadata }[];
}

/**
 * Appends to many streams in ONE statement, with the same guarantees as PostgresEventStore.append:
 * each stream row moves from its expected version first (a conflict anywhere moves fewer rows, and
 * the caller's transaction is rolled back), events are stamped with the transaction id, and global
 * positions follow the input order, so a stream's events keep version order in the global log.
 * A bulk import spends one round trip per batch instead of one per stream, which is what makes
 * thousands of records per second possible. Must run inside a transaction (the rollback undoes a
 * partial move). Returns the position of every appended event, keyed `<streamId>@<version>`.
 */
export async function appendMany(trx: Knex.Transaction, appends: StreamAppend[]): Promise<Map<string, LogPosition>> {
  const out = new Map<string, LogPosition>();
  if (!appends.length) return out;
  if (new Set(appends.map((a) => a.streamId)).size !== appends.length) throw new Error('appendMany: one entry per stream');
  // The events travel as ONE JSON document, not as parallel arrays of JSON strings: an array parameter
  // makes the driver escape every element (each event's data and metadata, stringified a second time
  // into an array literal), which cost more CPU than the rest of the append.
  // The chains are computed here from the heads read in this transaction: the versions are known, and a
  // stream moved meanwhile fails its version check below, so a head read here is the one appended to.
  const heads = await streamHeads(trx, appends.filter((a) => a.expected > 0).map((a) => a.streamId));
  const recordedAt = new Date().toISOString();
  const events: { event_id: string; stream_id: string; ord: number; seq: number; type: string; schema_version: number; data: unknown; metadata: unknown }[] = [];
  const headHashes: (string | null)[] = [];
  for (const a of appends) {
    let prevHash = a.expected > 0 ? (heads.get(a.streamId) ?? null) : null;
    a.events.forEach((e, i) => {
      const metadata = withoutHashes(e.metadata);
      const schemaVersion = e.event.schemaVersion ?? 1;
      const data = e.event.data ?? {};
      const hash = eventHash({ streamId: a.streamId, version: a.expected + i + 1, type: e.event.type, schemaVersion, data, metadata, recordedAt, prevHash });
      events.push({
        event_id: timeOrderedUuid(),
        stream_id: a.streamId,
        ord: i + 1,
        seq: events.length,
        type: e.event.type,
        schema_version: schemaVersion,
        data,
        metadata: { ...metadata, prevHash, hash },
      });
      prevHash = hash;
    });
    headHashes.push(prevHash);
  }
  const sql = `
    with input as (
      select * from unnest(cast(? as text[]), cast(? as bigint[]), cast(? as bigint[]), cast(? as text[])) as i(stream_id, expected, n, head_hash)
    ),
    created as (
      insert into es_streams (stream_id, version, head_hash)
      select stream_id, n, head_hash from input where expected = 0
      on conflict do nothing
      returning stream_id, version
    ),
    updated as (
      update es_streams s set version = s.version + i.n, head_hash = i.head_hash
      from input i where s.stream_id = i.stream_id and i.expected > 0 and s.version = i.expected
      returning s.stream_id, s.version
    ),
    moved as (select stream_id, version from created union all select stream_id, version from updated),
    ins as (
      insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
      select e.event_id, e.stream_id, m.version - i.n + e.ord, e.type, e.schema_version, e.data, e.metadata, cast(? as timestamptz)
      from jsonb_to_recordset(cast(? as jsonb))
        as e(event_id uuid, stream_id text, ord int, seq int, type text, schema_version int, data jsonb, metadata jsonb)
      join moved m on m.stream_id = e.stream_id
      join input i on i.stream_id = e.stream_id
      order by e.seq
      returning global_position, transaction_id::text as tx, stream_id, version
    )
    select (select count(*) from moved) as moved, ins.* from ins`;
  const res = await trx.raw(sql, [
    appends.map((a) => a.streamId),
    appends.map((a) => a.expected),
    appends.map((a) => a.events.length),
    headHashes,
    recordedAt,
    JSON.stringify(events),
  ] as never);
  const rows = res.rows as { moved: number; global_position: number; tx: string; stream_id: string; version: number }[];
  const moved = rows.length ? Number(rows[0].moved) : 0;
  if (moved !== appends.length) {
    const movedIds = new Set(rows.map((r) => r.stream_id));
    const lost = appends.find((a) => !movedIds.has(a.streamId))!;
    throw new ExpectedVersionConflict(lost.streamId, lost.expected, null);
  }
  for (const r of rows) out.set(`${r.stream_id}@${Number(r.version)}`, { commit: BigInt(r.tx), prepare: BigInt(r.global_position) });
  return out;
}
