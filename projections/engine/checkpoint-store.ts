import type { Knex } from 'knex';
import type { LogPosition } from '../../src/domain/events';
import { START, comparePositions } from '../../src/domain/events';
import { runStatement } from '../../infra/postgres/prepared';

/** Where a projector (or a rebuild's shadow) stands in the log, and the projector version that wrote it. */
export interface Checkpoint {
  position: LogPosition;
  version: number;
}

/** The error text by which a scripted group batch's move says that another runner moved a checkpoint first. */
const LOST_RACE_MARK = 'projection checkpoint moved by another runner';

/**
 * A group batch's first statement: synchronous_commit off (safe as in a single batch: the events are durable
 * and a lost batch is re-applied), every member's checkpoint lock in name order (so runners never
 * deadlock), then every member's checkpoint moved if nobody moved it meanwhile. One statement: the
 * uncorrelated sub-select takes the locks once, before any checkpoint row is updated, and a row that
 * another runner changed after this statement's snapshot is re-checked against its newest version
 * by Postgres (as for any concurrent UPDATE under read committed), so a lost race matches no row.
 * `$1` the member names sorted, `$2` the moves as JSON.
 */
export const MOVE_GROUP_CHECKPOINTS = {
  name: 'projection_group_move',
  text: `update projection_checkpoints c set commit_position = cast(m.tc as numeric), prepare_position = cast(m.tp as numeric), version = m.v, updated_at = now()
    from jsonb_to_recordset($2::jsonb) as m(name text, fc text, fp text, tc text, tp text, v int)
    where (select count(pg_advisory_xact_lock(7262613, hashtext(n))) + length(set_config('synchronous_commit', 'off', true)) from unnest($1::text[]) as n) > 0
      and c.name = m.name and c.commit_position = cast(m.fc as numeric) and c.prepare_position = cast(m.fp as numeric)
    returning c.name`,
};

/**
 * The scripted group batch's first statement: MOVE_GROUP_CHECKPOINTS, failing unless it moved all `$3`
 * members. A multi-statement query has no way to skip its later statements on a result, but an error
 * rolls the whole implicit transaction back, so a lost race applies nothing. The error comes from a
 * cast of text to int; it is built from the count so the planner cannot fold it into an error at
 * planning time.
 */
export const MOVE_GROUP_CHECKPOINTS_OR_FAIL = `with moved as (${MOVE_GROUP_CHECKPOINTS.text})
    select case when count(*) = $3 then 0 else cast('${LOST_RACE_MARK}: ' || count(*) as int) end from moved`;

/** Whether a scripted group batch failed because MOVE_GROUP_CHECKPOINTS_OR_FAIL lost the race. */
export const isLostRace = (e: unknown) => (e as { code?: string }).code === '22P02' && String((e as Error).message).includes(LOST_RACE_MARK);

/**
 * A checkpoint moved over a range holding none of its projector's events, in one autocommitted
 * statement. Every projector does this under a steady stream of others' writes, so it was a large
 * share of all statements as a full batch (begin, lock, move, commit). The lock only keeps two
 * runners from applying the same events; with nothing to apply, the conditional update is enough: a
 * runner that moved the row first (even after this statement's snapshot) makes it match nothing.
 * synchronous_commit off as in a single batch. `$1` name, `$2`/`$3` from, `$4`/`$5` to, `$6` version.
 */
const MOVE_CHECKPOINT_ALONE = {
  name: 'projection_move_alone',
  text: `update projection_checkpoints set commit_position = $4::numeric, prepare_position = $5::numeric, version = $6::int, updated_at = now()
    where name = $1 and commit_position = $2::numeric and prepare_position = $3::numeric
      and length(set_config('synchronous_commit', 'off', true)) > 0
    returning name`,
};

export async function readCheckpoint(db: Knex | Knex.Transaction, name: string): Promise<Checkpoint | null> {
  const res = await db.raw(`select commit_position::text as c, prepare_position::text as p, version from projection_checkpoints where name = ?`, [name]);
  const r = res.rows[0];
  return r ? { position: { commit: BigInt(r.c), prepare: BigInt(r.p) }, version: r.version } : null;
}

/** The named checkpoints' positions; START for a name without a row. */
export async function readCheckpoints(knex: Knex, names: string[]): Promise<Map<string, LogPosition>> {
  const res = await knex.raw(`select name, commit_position::text as c, prepare_position::text as p from projection_checkpoints where name = any(?)`, [names]);
  const out = new Map<string, LogPosition>(names.map((n) => [n, START]));
  for (const r of res.rows as { name: string; c: string; p: string }[]) out.set(r.name, { commit: BigInt(r.c), prepare: BigInt(r.p) });
  return out;
}

/**
 * Serialises runners of one checkpoint (across processes) until the transaction ends. An advisory
 * lock, not SELECT ... FOR UPDATE: a row lock assigns a transaction id at once, and every open
 * transaction id holds back the snapshot horizon that all subscribers read below.
 */
export async function lockCheckpoint(trx: Knex.Transaction, name: string): Promise<void> {
  await trx.raw(`select pg_advisory_xact_lock(7262613, hashtext(?))`, [name]);
}

/**
 * The start of a single batch's transaction, in one round trip (a batch is on every write's read-your-writes
 * path): the checkpoint's lock, and synchronous_commit off. That is safe here: the read-model change and its
 * checkpoint commit together and the events are already durable, so a crash can only lose whole batches,
 * which are re-applied from the previous checkpoint. Not waiting for the fsync keeps this transaction's id,
 * which holds back every subscriber's snapshot horizon, open for a much shorter time.
 */
export async function lockCheckpointForBatch(trx: Knex.Transaction, name: string): Promise<void> {
  await trx.raw(`select set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(7262613, hashtext(?))`, [name]);
}

export async function writeCheckpoint(trx: Knex.Transaction, name: string, pos: LogPosition, version: number): Promise<void> {
  await trx.raw(
    `insert into projection_checkpoints (name, commit_position, prepare_position, version, updated_at) values (?, ?, ?, ?, now())
     on conflict (name) do update set commit_position = excluded.commit_position, prepare_position = excluded.prepare_position,
       version = excluded.version, updated_at = now()`,
    [name, pos.commit.toString(), pos.prepare.toString(), version],
  );
}

export async function deleteCheckpoints(db: Knex | Knex.Transaction, names: string[]): Promise<void> {
  await db('projection_checkpoints').whereIn('name', names).delete();
}

/**
 * Moves the checkpoint from `from` to `to` if nobody moved it meanwhile: one statement instead of a
 * locked re-read plus an upsert. Run after the advisory lock, so its snapshot already sees any
 * runner that held the lock before us. A missing row (the first batch ever) is inserted.
 */
export async function advanceCheckpoint(trx: Knex.Transaction, name: string, from: LogPosition, to: LogPosition, version: number): Promise<boolean> {
  const res = await trx.raw(
    `update projection_checkpoints set commit_position = ?, prepare_position = ?, version = ?, updated_at = now()
     where name = ? and commit_position = ? and prepare_position = ?`,
    [to.commit.toString(), to.prepare.toString(), version, name, from.commit.toString(), from.prepare.toString()],
  );
  if (res.rowCount === 1) return true;
  if (comparePositions(from, START) !== 0) return false;
  const ins = await trx.raw(
    `insert into projection_checkpoints (name, commit_position, prepare_position, version, updated_at) values (?, ?, ?, ?, now())
     on conflict (name) do nothing`,
    [name, to.commit.toString(), to.prepare.toString(), version],
  );
  return ins.rowCount === 1;
}

/** Moves a checkpoint without a transaction or lock, for a range with none of its projector's events; false on a lost race. */
export async function moveCheckpointAlone(knex: Knex, name: string, from: LogPosition, to: LogPosition, version: number): Promise<boolean> {
  const moved = await runStatement(knex, {
    ...MOVE_CHECKPOINT_ALONE,
    values: [name, from.commit.toString(), from.prepare.toString(), to.commit.toString(), to.prepare.toString(), version],
  });
  return moved.length > 0;
}
