import type { Knex } from 'knex';
import type { LogPosition } from '../../src/domain/events';
import { START, comparePositions } from '../../src/domain/events';
import type { EventStore } from '../../src/ports/event-store';
import { eventTypesOf, type Projector, type TableNamer } from '../projector';
import { advanceCheckpoint, lockCheckpointForBatch, moveCheckpointAlone, readCheckpoint } from './checkpoint-store';

export interface BatchDeps {
  knex: Knex;
  store: EventStore;
}

export interface SingleBatchOptions {
  /** The checkpoint row the batch moves: the projector's own, or a rebuild's shadow one. */
  checkpoint: string;
  table: TableNamer;
  limit: number;
  /** Run inside this transaction (a rebuild's swap) instead of one of its own. */
  trx?: Knex.Transaction;
  /** The checkpoint this runner last committed: saves the unlocked read; a stale one only costs a lost race. */
  known?: LogPosition;
}

export interface SingleBatchResult {
  /** Events applied; -1 when another runner moved the checkpoint first (the caller just tries again). */
  applied: number;
  position: LogPosition;
  /** False: nothing new was visible. */
  moved: boolean;
}

/** One batch for one projector: one transaction that moves its checkpoint and applies the events. */
export async function runSingleBatch(deps: BatchDeps, p: Projector, o: SingleBatchOptions): Promise<SingleBatchResult> {
  const { knex, store } = deps;
  const from = o.known ?? (await readCheckpoint(o.trx ?? knex, o.checkpoint))?.position ?? START;
  const { events, horizon } = await store.readAll({ after: from, limit: o.limit, types: [...eventTypesOf(p)] });
  if (comparePositions(horizon, from) <= 0) return { applied: 0, position: from, moved: false };
  if (!events.length && !o.trx && comparePositions(from, START) !== 0) {
    // Only other projectors' events: nothing to apply, so no transaction and no lock, just the move.
    const moved = await moveCheckpointAlone(knex, o.checkpoint, from, horizon, p.version);
    return moved ? { applied: 0, position: horizon, moved: true } : { applied: -1, position: from, moved: false };
  }
  const run = async (trx: Knex.Transaction) => {
    await lockCheckpointForBatch(trx, o.checkpoint);
    // Checkpoint first: a lost race applies nothing (the transaction then commits empty).
    if (!(await advanceCheckpoint(trx, o.checkpoint, from, horizon, p.version))) return false;
    if (events.length) await p.apply({ trx, table: o.table }, events);
    return true;
  };
  const ok = o.trx ? await run(o.trx) : await knex.transaction(run);
  if (!ok) return { applied: -1, position: from, moved: false };
  return { applied: events.length, position: horizon, moved: true };
}
