import crypto from 'node:crypto';
import { timeOrderedUuid } from './time-ordered-uuid';
import type { Knex } from 'knex';
import { ExpectedVersionConflict } from '../../src/domain/errors';
import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent } from '../../src/domain/events';
import type { AppendGuard, GuardedAppendResult } from '../../src/ports/event-store';
import { runStatement } from '../postgres/prepared';
import { AppendBatcher, type AppendCall } from './postgres-append-batch';

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

/** The same moves, made only when the guard's row says `ok` (no row, or not ok: no move, no event, no position). */
const GUARDED_MOVE_STREAM: Record<Expectation, string> = {
  any: `insert into es_streams (stream_id, version) select $1, $2::bigint where (select ok from guard)
    on conflict (stream_id) do update set version = es_streams.version + excluded.version returning version`,
  new: `insert into es_streams (stream_id, version) select $1, $2::bigint where (select ok from guard) on conflict do nothing returning version`,
  exact: `update es_streams set version = version + $3::bigint where stream_id = $1 and version = $2::bigint and (select ok from guard) returning version`,
};

/** The parameter after the stream move's own ones. */
const FIRST_EVENT_PARAM: Record<Expectation, number> = { any: 3, new: 3, exact: 4 };

/** One event: scalar parameters, so no array literal to build and escape in node or to unnest in Postgres. */
function insertOneSql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  return `insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata)
    select $${p}::uuid, $1, s.version, $${p + 1}::text, $${p + 2}::int, $${p + 3}::jsonb, $${p + 4}::jsonb from s
    returning global_position, transaction_id::text as tx, version`;
}

function insertManySql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  const count = e === 'exact' ? '$3' : '$2';
  return `insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata)
      select e.event_id, $1, s.version - ${count}::bigint + e.ord, e.type, e.schema_version, e.data, $${p + 4}::jsonb
      from s, unnest($${p}::uuid[], $${p + 1}::text[], $${p + 2}::int[], $${p + 3}::jsonb[])
        with ordinality as e(event_id, type, schema_version, data, ord)
      returning global_position, transaction_id::text as tx, version`;
}

function singleEventSql(e: Expectation): string {
  return `with s as (${MOVE_STREAM[e]})
    ${insertOneSql(e)}`;
}

function manyEventsSql(e: Expectation): string {
  return `with s as (${MOVE_STREAM[e]}),
    ins as (${insertManySql(e)})
    select global_position, tx, version from ins order by version desc limit 1`;
}

/**
 * The guarded form (see appendEventsGuarded): the guard's `k` parameters first, the append's after
 * them; one result row whatever happened, with the guard's row (null when it found none) and the
 * append's last event (nulls when nothing was appended).
 */
function guardedSql(guardSql: string, k: number, e: Expectation, single: boolean): string {
  const append = `s as (${GUARDED_MOVE_STREAM[e]}),
    ins as (${single ? insertOneSql(e) : insertManySql(e)})`.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + k}`);
  return `with guard as (${guardSql}),
    ${append}
    select (select row_to_json(guard) from guard) as guard__, a.global_position, a.tx, a.version
    from (select 1) as one left join (select * from ins order by version desc limit 1) as a on true`;
}

const EXPECTATIONS: Expectation[] = ['any', 'new', 'exact'];
const SINGLE = Object.fromEntries(EXPECTATIONS.map((e) => [e, { name: `es_append_one_${e}`, text: singleEventSql(e) }])) as Record<Expectation, { name: string; text: string }>;
const MANY = Object.fromEntries(EXPECTATIONS.map((e) => [e, { name: `es_append_many_${e}`, text: manyEventsSql(e) }])) as Record<Expectation, { name: string; text: string }>;

interface AppendedRow {
  global_position: number;
  tx: string;
  version: number;
}

/** The statement and its parameters for one append (statements as built above, `$1` first). */
function appendParams(streamId: string, events: NewEvent[], expectedVersion: ExpectedVersion, metadata: EventMetadata): { expectation: Expectation; single: boolean; values: unknown[] } {
  if (events.length === 0) throw new Error('append needs at least one event');
  const n = events.length;
  const expectation: Expectation = expectedVersion === 'any' ? 'any' : expectedVersion === 0 ? 'new' : 'exact';
  const values: unknown[] = expectation === 'exact' ? [streamId, expectedVersion, n] : [streamId, n];
  const meta = JSON.stringify(metadata ?? {});
  if (n === 1) {
    const e = events[0];
    values.push(timeOrderedUuid(), e.type, e.schemaVersion ?? 1, JSON.stringify(e.data ?? {}), meta);
  } else {
    values.push(
      events.map(() => timeOrderedUuid()),
      events.map((e) => e.type),
      events.map((e) => e.schemaVersion ?? 1),
      events.map((e) => JSON.stringify(e.data ?? {})),
      meta,
    );
  }
  return { expectation, single: n === 1, values };
}

/** Per pool, the batcher its appends outside transactions share (see AppendBatcher). */
const batchers = new WeakMap<Knex, AppendBatcher>();

/**
 * Runs an append statement: inside a caller's transaction on its connection, otherwise batched with
 * the concurrent appends on the same pool.
 */
async function runAppend<R>(db: Knex | Knex.Transaction, call: AppendCall): Promise<R[]> {
  if ((db as Knex.Transaction).isTransaction) return runStatement<R & object>(db, call);
  let b = batchers.get(db as Knex);
  if (!b) batchers.set(db as Knex, (b = new AppendBatcher(db as Knex)));
  return (await b.run(call)) as R[];
}

async function conflict(db: Knex | Knex.Transaction, streamId: string, expectedVersion: ExpectedVersion): Promise<ExpectedVersionConflict> {
  const v = await runStatement<{ version: number }>(db, { name: 'es_append_conflict_version', text: `select version from es_streams where stream_id = $1`, values: [streamId] });
  return new ExpectedVersionConflict(streamId, expectedVersion, v[0] ? Number(v[0].version) : 0);
}

/** Appends on a knex instance or inside a caller's transaction. */
export async function appendEvents(
  db: Knex | Knex.Transaction,
  streamId: string,
  events: NewEvent[],
  expectedVersion: ExpectedVersion,
  metadata: EventMetadata,
): Promise<AppendResult> {
  const { expectation, single, values } = appendParams(streamId, events, expectedVersion, metadata);
  const statement = (single ? SINGLE : MANY)[expectation];
  const row = (await runAppend<AppendedRow>(db, { streamId, name: statement.name, text: statement.text, values }))[0];
  if (!row) throw await conflict(db, streamId, expectedVersion);
  return { nextVersion: Number(row.version), position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) } };
}

/** Guarded statements by guard text, then expectation and event count form; each prepared once per connection. */
const guardedStatements = new Map<string, Map<string, { name: string; text: string }>>();

function guardedStatement(guard: AppendGuard, expectation: Expectation, single: boolean): { name: string; text: string } {
  let forms = guardedStatements.get(guard.sql);
  if (!forms) guardedStatements.set(guard.sql, (forms = new Map()));
  const form = `${expectation}/${single ? 'one' : 'many'}`;
  let st = forms.get(form);
  if (!st) {
    const text = guardedSql(guard.sql, guard.values.length, expectation, single);
    st = { name: `es_guarded_${crypto.createHash('sha1').update(text).digest('base64url').slice(0, 20)}`, text };
    forms.set(form, st);
  }
  return st;
}

/**
 * An append that happens only if a look-up in the same statement allows it (a permission, say): one
 * round trip instead of a check and then an append, and the check sees the database as the append
 * does. `guard.sql` selects at most one row with a boolean column `ok`, its parameters `$1`.. being
 * `guard.values`. Returns that row (null when the look-up found none) and the append's result, null
 * when the guard refused; a refused guard appends nothing and burns no position. A version conflict
 * under an `ok` guard throws as `appendEvents` does.
 */
export async function appendEventsGuarded(
  db: Knex | Knex.Transaction,
  streamId: string,
  events: NewEvent[],
  expectedVersion: ExpectedVersion,
  metadata: EventMetadata,
  guard: AppendGuard,
): Promise<GuardedAppendResult> {
  const { expectation, single, values } = appendParams(streamId, events, expectedVersion, metadata);
  const statement = guardedStatement(guard, expectation, single);
  const [row] = await runAppend<Partial<AppendedRow> & { guard__: (Record<string, unknown> & { ok: boolean | null }) | null }>(db, { streamId, ...statement, values: [...guard.values, ...values] });
  const guardRow = row.guard__;
  if (row.version === null || row.version === undefined) {
    if (!guardRow?.ok) return { guard: guardRow, result: null };
    throw await conflict(db, streamId, expectedVersion);
  }
  return { guard: guardRow, result: { nextVersion: Number(row.version), position: { commit: BigInt(row.tx!), prepare: BigInt(row.global_position!) } } };
}
