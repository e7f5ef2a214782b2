import crypto from 'node:crypto';
import type { Knex } from 'knex';
import { ExpectedVersionConflict } from '../../src/domain/errors';
import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent } from '../../src/domain/events';
import { runStatement } from '../postgres/prepared';

/**
 * The append statements of the Postgres event store, sent straight to a pooled `pg` connection as
 * named prepared statements. Going through knex's query builder cost about 200 µs of node CPU per
 * append (binding rewrite, query object, result processing) and Postgres parsed and planned the CTE
 * every time; on a two-core machine that CPU is what capped concurrent appends.
 *
 * Every statement is ONE statement (no BEGIN/COMMIT round trips) that moves the stream row from the
 * expected version first, so a losing writer matches no row, inserts nothing and burns no positions;
 * the events take `transaction_id` from the column default (pg_current_xact_id()), which is what keeps
 * the subscribers' (transaction_id, global_position) order gap-free.
 */

type Expectation = 'any' | 'new' | 'exact';

/** `$1` stream id, `$2` event count (or expected version for 'exact', then `$3` count). */
const MOVE_STREAM: Record<Expectation, string> = {
  any: `insert into es_streams (stream_id, version) values ($1, $2::bigint)
    on conflict (stream_id) do update set version = es_streams.version + excluded.version returning version`,
  new: `insert into es_streams (stream_id, version) values ($1, $2::bigint) on conflict do nothing returning version`,
  exact: `update es_streams set version = version + $3::bigint where stream_id = $1 and version = $2::bigint returning version`,
};

/** The parameter after the stream move's own ones. */
const FIRST_EVENT_PARAM: Record<Expectation, number> = { any: 3, new: 3, exact: 4 };

/** One event: scalar parameters, so no array literal to build and escape in node or to unnest in Postgres. */
function singleEventSql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  return `with s as (${MOVE_STREAM[e]})
    insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata)
    select $${p}::uuid, $1, s.version, $${p + 1}::text, $${p + 2}::int, $${p + 3}::jsonb, $${p + 4}::jsonb from s
    returning global_position, transaction_id::text as tx, version`;
}

function manyEventsSql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  const count = e === 'exact' ? '$3' : '$2';
  return `with s as (${MOVE_STREAM[e]}),
    ins as (
      insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata)
      select e.event_id, $1, s.version - ${count}::bigint + e.ord, e.type, e.schema_version, e.data, $${p + 4}::jsonb
      from s, unnest($${p}::uuid[], $${p + 1}::text[], $${p + 2}::int[], $${p + 3}::jsonb[])
        with ordinality as e(event_id, type, schema_version, data, ord)
      returning global_position, transaction_id::text as tx, version
    )
    select global_position, tx, version from ins order by version desc limit 1`;
}

const EXPECTATIONS: Expectation[] = ['any', 'new', 'exact'];
const SINGLE = Object.fromEntries(EXPECTATIONS.map((e) => [e, { name: `es_append_one_${e}`, text: singleEventSql(e) }])) as Record<Expectation, { name: string; text: string }>;
const MANY = Object.fromEntries(EXPECTATIONS.map((e) => [e, { name: `es_append_many_${e}`, text: manyEventsSql(e) }])) as Record<Expectation, { name: string; text: string }>;

interface AppendedRow {
  global_position: number;
  tx: string;
  version: number;
}

/** Appends on a knex instance or inside a caller's transaction. */
export async function appendEvents(
  db: Knex | Knex.Transaction,
  streamId: string,
  events: NewEvent[],
  expectedVersion: ExpectedVersion,
  metadata: EventMetadata,
): Promise<AppendResult> {
  if (events.length === 0) throw new Error('append needs at least one event');
  const n = events.length;
  const expectation: Expectation = expectedVersion === 'any' ? 'any' : expectedVersion === 0 ? 'new' : 'exact';
  const values: unknown[] = expectation === 'exact' ? [streamId, expectedVersion, n] : [streamId, n];
  const meta = JSON.stringify(metadata ?? {});
  let statement: { name: string; text: string };
  if (n === 1) {
    const e = events[0];
    statement = SINGLE[expectation];
    values.push(crypto.randomUUID(), e.type, e.schemaVersion ?? 1, JSON.stringify(e.data ?? {}), meta);
  } else {
    statement = MANY[expectation];
    values.push(
      events.map(() => crypto.randomUUID()),
      events.map((e) => e.type),
      events.map((e) => e.schemaVersion ?? 1),
      events.map((e) => JSON.stringify(e.data ?? {})),
      meta,
    );
  }
  const row = (await runStatement<AppendedRow>(db, { name: statement.name, text: statement.text, values }))[0];
  if (!row) {
    const v = await runStatement<{ version: number }>(db, { name: 'es_append_conflict_version', text: `select version from es_streams where stream_id = $1`, values: [streamId] });
    throw new ExpectedVersionConflict(streamId, expectedVersion, v[0] ? Number(v[0].version) : 0);
  }
  return { nextVersion: Number(row.version), position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) } };
}
