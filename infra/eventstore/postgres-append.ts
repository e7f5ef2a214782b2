import crypto from 'node:crypto';
import { timeOrderedUuid } from './time-ordered-uuid';
import type { Knex } from 'knex';
import { ExpectedVersionConflict } from '../../src/domain/errors';
import type { AppendResult, EventMetadata, ExpectedVersion, NewEvent } from '../../src/domain/events';
import type { AppendGuard, GuardedAppendResult } from './event-store';
import { runStatement } from '../postgres/prepared';
import { AppendBatcher, type AppendCall } from './postgres-append-batch';
import { chainAppend, metadataWithHashes, withoutHashes } from '../../src/domain/event-hash';
import { StreamHeads } from './stream-heads';

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
 *
 * The hash chain (src/domain/event-hash.ts) is computed in node before the statement, from the head
 * the append chains onto: the stream row keeps its last event's hash (`head_hash`), and the move checks
 * it together with the version, so an append chained from a wrong head matches no row either. The head
 * comes from this pool's StreamHeads (the stream's last append or read here) or, on a miss, from one
 * read of the stream row. Hashing in the statement instead (SQL over canonical text cut around the
 * previous hash) ran batches of 100 events at a third of the unhashed rate: a plpgsql loop per append.
 */

type Expectation = 'new' | 'exact';

/**
 * `$1` stream id, `$2` event count, `$3` new head hash ('new'); `$1` stream id, `$2` expected version,
 * `$3` count, `$4` the head it chains from, `$5` new head hash ('exact').
 */
function moveStreamSql(e: Expectation, guarded: boolean): string {
  if (e === 'new') {
    return `insert into es_streams (stream_id, version, head_hash) select $1, $2::bigint, $3::text${guarded ? ' where (select ok from guard)' : ''}
    on conflict do nothing returning version`;
  }
  return `update es_streams set version = version + $3::bigint, head_hash = $5::text
    where stream_id = $1 and version = $2::bigint and head_hash is not distinct from $4::text${guarded ? ' and (select ok from guard)' : ''} returning version`;
}

/** The parameter after the stream move's own ones. */
const FIRST_EVENT_PARAM: Record<Expectation, number> = { new: 4, exact: 6 };

/** One event: scalar parameters (its metadata complete with the hashes), no array to build or unnest. */
function insertOneSql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  return `insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
    select $${p}::uuid, $1, s.version, $${p + 1}::text, $${p + 2}::int, $${p + 3}::jsonb, $${p + 4}::jsonb, $${p + 5}::timestamptz from s
    returning global_position, transaction_id::text as tx, version`;
}

/** The shared metadata, completed per event with its two hashes (arrays unnested with the events'). */
function insertManySql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  const count = e === 'exact' ? '$3' : '$2';
  return `insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata, recorded_at)
      select e.event_id, $1, s.version - ${count}::bigint + e.ord, e.type, e.schema_version, e.data,
        $${p + 4}::jsonb || jsonb_build_object('prevHash', e.prev_hash, 'hash', e.hash), $${p + 7}::timestamptz
      from s, unnest($${p}::uuid[], $${p + 1}::text[], $${p + 2}::int[], $${p + 3}::jsonb[], $${p + 5}::text[], $${p + 6}::text[])
        with ordinality as e(event_id, type, schema_version, data, prev_hash, hash, ord)
      returning global_position, transaction_id::text as tx, version`;
}

function singleEventSql(e: Expectation): string {
  return `with s as (${moveStreamSql(e, false)})
    ${insertOneSql(e)}`;
}

function manyEventsSql(e: Expectation): string {
  return `with s as (${moveStreamSql(e, false)}),
    ins as (${insertManySql(e)})
    select global_position, tx, version from ins order by version desc limit 1`;
}

/**
 * The guarded form (see appendEventsGuarded): the guard's `k` parameters first, the append's after
 * them; one result row whatever happened, with the guard's row (null when it found none) and the
 * append's last event (nulls when nothing was appended).
 */
function guardedSql(guardSql: string, k: number, e: Expectation, single: boolean): string {
  const append = `s as (${moveStreamSql(e, true)}),
    ins as (${single ? insertOneSql(e) : insertManySql(e)})`.replace(/\$(\d+)/g, (_, n) => `$${Number(n) + k}`);
  return `with guard as (${guardSql}),
    ${append}
    select (select row_to_json(guard) from guard) as guard__, a.global_position, a.tx, a.version
    from (select 1) as one left join (select * from ins order by version desc limit 1) as a on true`;
}

const EXPECTATIONS: Expectation[] = ['new', 'exact'];
const SINGLE = Object.fromEntries(EXPECTATIONS.map((e) => [e, { name: `es_append_one_${e}`, text: singleEventSql(e) }])) as Record<Expectation, { name: string; text: string }>;
const MANY = Object.fromEntries(EXPECTATIONS.map((e) => [e, { name: `es_append_many_${e}`, text: manyEventsSql(e) }])) as Record<Expectation, { name: string; text: string }>;

interface AppendedRow {
  global_position: number;
  tx: string;
  version: number;
}

/** An append's statement parameters once its head is known (statements as built above, `$1` first). */
function appendParams(streamId: string, events: NewEvent[], expected: number, prevHash: string | null, metadata: EventMetadata): { expectation: Expectation; single: boolean; values: unknown[]; headHash: string } {
  const n = events.length;
  const expectation: Expectation = expected === 0 ? 'new' : 'exact';
  const plain = withoutHashes(metadata);
  // Stamped here, not by the column default, so the hash covers exactly what is stored.
  const recordedAt = new Date().toISOString();
  const chain = chainAppend({ streamId, expectedVersion: expected, prevHash, recordedAt, metadata: plain, events });
  const headHash = chain.headHash!;
  const values: unknown[] = expectation === 'exact' ? [streamId, expected, n, prevHash, headHash] : [streamId, n, headHash];
  if (n === 1) {
    const e = events[0];
    const c = chain.events[0];
    values.push(timeOrderedUuid(), e.type, e.schemaVersion ?? 1, c.dataText, metadataWithHashes(chain.metadataText, c.prevHash, c.hash), recordedAt);
  } else {
    values.push(
      events.map(() => timeOrderedUuid()),
      events.map((e) => e.type),
      events.map((e) => e.schemaVersion ?? 1),
      chain.events.map((c) => c.dataText),
      chain.metadataText,
      chain.events.map((c) => c.prevHash),
      chain.events.map((c) => c.hash),
      recordedAt,
    );
  }
  return { expectation, single: n === 1, values, headHash };
}

/** Per pool, the batcher its appends outside transactions share (see AppendBatcher) and its known heads. */
const batchers = new WeakMap<Knex, AppendBatcher>();
const knownHeads = new WeakMap<Knex, StreamHeads>();

/** The heads known for a pool; none inside a caller's transaction (its appends may yet roll back). */
function headsOf(db: Knex | Knex.Transaction): StreamHeads | null {
  if ((db as Knex.Transaction).isTransaction) return null;
  let h = knownHeads.get(db as Knex);
  if (!h) knownHeads.set(db as Knex, (h = new StreamHeads()));
  return h;
}

/** Notes a stream's last event as read outside a transaction (PostgresEventStore.readStream). */
export function noteStreamHead(db: Knex, streamId: string, version: number, hash: unknown): void {
  headsOf(db)?.note(streamId, version, hash);
}

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

async function readHead(db: Knex | Knex.Transaction, streamId: string): Promise<{ version: number; hash: string | null }> {
  const [r] = await runStatement<{ version: number; head_hash: string | null }>(db, { name: 'es_append_head', text: `select version, head_hash from es_streams where stream_id = $1`, values: [streamId] });
  return r ? { version: Number(r.version), hash: r.head_hash } : { version: 0, hash: null };
}

/**
 * The stream version an append goes to and the head it chains from: the expected version with a known
 * head, or the stream row's. Null: the stream is not at the expected version (a conflict).
 */
async function appendTarget(db: Knex | Knex.Transaction, streamId: string, expectedVersion: ExpectedVersion, fresh: boolean): Promise<{ expected: number; prevHash: string | null } | { actual: number }> {
  if (expectedVersion === 0) return { expected: 0, prevHash: null };
  const known = fresh || expectedVersion === 'any' ? undefined : headsOf(db)?.get(streamId, expectedVersion);
  if (known !== undefined) return { expected: expectedVersion as number, prevHash: known };
  const head = await readHead(db, streamId);
  if (expectedVersion !== 'any' && head.version !== expectedVersion) return { actual: head.version };
  return { expected: head.version, prevHash: head.hash };
}

/**
 * Runs `attempt` (one append statement: its result and the head it left, null when it moved no stream row) from the append's head and
 * settles what an unmoved row means: 'any' goes again at the version now current; a stream still at the
 * expected version had another head than the one noted (read it, once); otherwise a version conflict.
 */
async function chained<T>(
  db: Knex | Knex.Transaction,
  streamId: string,
  expectedVersion: ExpectedVersion,
  attempt: (expected: number, prevHash: string | null) => Promise<{ result: T; head?: { version: number; hash: string } } | null>,
): Promise<T> {
  let fresh = false;
  for (let tries = 0; ; tries++) {
    const target = await appendTarget(db, streamId, expectedVersion, fresh);
    if ('actual' in target) throw new ExpectedVersionConflict(streamId, expectedVersion, target.actual);
    const r = await attempt(target.expected, target.prevHash);
    if (r) {
      if (r.head) headsOf(db)?.note(streamId, r.head.version, r.head.hash);
      return r.result;
    }
    if (expectedVersion === 'any' && tries < 20) continue;
    if (!fresh && expectedVersion !== 'any' && expectedVersion !== 0) {
      fresh = true;
      continue;
    }
    throw new ExpectedVersionConflict(streamId, expectedVersion, (await readHead(db, streamId)).version);
  }
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
  return chained(db, streamId, expectedVersion, async (expected, prevHash) => {
    const { expectation, single, values, headHash } = appendParams(streamId, events, expected, prevHash, metadata);
    const statement = (single ? SINGLE : MANY)[expectation];
    const row = (await runAppend<AppendedRow>(db, { streamId, name: statement.name, text: statement.text, values }))[0];
    if (!row) return null;
    const nextVersion = Number(row.version);
    return { head: { version: nextVersion, hash: headHash }, result: { nextVersion, position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) } } };
  });
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
  if (events.length === 0) throw new Error('append needs at least one event');
  return chained<GuardedAppendResult>(db, streamId, expectedVersion, async (expected, prevHash) => {
    const { expectation, single, values, headHash } = appendParams(streamId, events, expected, prevHash, metadata);
    const statement = guardedStatement(guard, expectation, single);
    const [row] = await runAppend<Partial<AppendedRow> & { guard__: (Record<string, unknown> & { ok: boolean | null }) | null }>(db, { streamId, ...statement, values: [...guard.values, ...values] });
    const guardRow = row.guard__;
    if (row.version === null || row.version === undefined) {
      // Refused: nothing to settle. Allowed but unmoved: a conflict (or another head) for chained to settle.
      if (!guardRow?.ok) return { result: { guard: guardRow, result: null } };
      return null;
    }
    const nextVersion = Number(row.version);
    return { head: { version: nextVersion, hash: headHash }, result: { guard: guardRow, result: { nextVersion, position: { commit: BigInt(row.tx!), prepare: BigInt(row.global_position!) } } } };
  });
}
