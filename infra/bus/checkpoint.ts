import type { Knex } from 'knex';
import { START, type LogPosition } from '../../src/domain/events';

/** A named position in projection_checkpoints (the relay's `relay:kafka`), written through the pool. */
export async function readCheckpoint(knex: Knex, name: string): Promise<LogPosition> {
  const res = await knex.raw(`select commit_position::text as c, prepare_position::text as p from projection_checkpoints where name = ?`, [name]);
  const r = res.rows[0];
  return r ? { commit: BigInt(r.c), prepare: BigInt(r.p) } : START;
}

export async function writeCheckpoint(knex: Knex, name: string, pos: LogPosition): Promise<void> {
  await knex.raw(
    `insert into projection_checkpoints (name, commit_position, prepare_position, version, updated_at) values (?, ?, ?, 1, now())
     on conflict (name) do update set commit_position = excluded.commit_position, prepare_position = excluded.prepare_position, updated_at = now()`,
    [name, pos.commit.toString(), pos.prepare.toString()],
  );
}
