import type { Knex } from 'knex';
import type { LogPosition } from '../../src/domain/events';
import { START, comparePositions } from '../../src/domain/events';
import { runStatement } from '../../infra/postgres/prepared';
import { runScript } from '../../infra/postgres/sql-script';
import type { SqlStatement } from '../batch-sql';
import { eventTypesOf, type GroupedProjector, type Projector, type ScriptedProjector } from '../projector';
import { advanceCheckpoint, isLostRace, MOVE_GROUP_CHECKPOINTS, MOVE_GROUP_CHECKPOINTS_OR_FAIL, readCheckpoints } from './checkpoint-store';
import type { BatchDeps } from './single-batch';

const isScripted = (p: Projector): p is ScriptedProjector => typeof (p as ScriptedProjector).batchStatements === 'function';

/** The projectors each runner serves: a run group's members together, every other one alone. */
export function runGroupsOf(projectors: Iterable<Projector>): Projector[][] {
  const groups = new Map<string, Projector[]>();
  const out: Projector[][] = [];
  for (const p of projectors) {
    const g = (p as GroupedProjector).runGroup;
    if (!g) out.push([p]);
    else if (groups.has(g)) groups.get(g)!.push(p);
    else {
      const members = [p];
      groups.set(g, members);
      out.push(members);
    }
  }
  return out;
}

/** Thrown inside a group batch's transaction to roll it back when another runner moved a checkpoint first. */
class LostRace extends Error {}

export interface GroupBatchResult {
  /** Events read; -1 when another runner moved a member's checkpoint first (nothing was applied). */
  applied: number;
  /** Events handed to members. */
  delivered: number;
  /** Whether any checkpoint moved (false: nothing new was visible). */
  moved: boolean;
  positions: Map<string, LogPosition>;
}

/**
 * One batch for a run group: one read of the log from the least advanced member, then one
 * transaction that locks every member's checkpoint (in name order, so runners never deadlock),
 * moves them all with one conditional update and applies each member the events past its own
 * checkpoint. A member ahead of the others (rebuilt meanwhile, say) is left where it is. When every
 * member is a ScriptedProjector, the batch travels as one multi-statement query instead.
 * `known` the checkpoints this runner last committed.
 */
export async function runGroupBatch(
  deps: BatchDeps,
  members: Projector[],
  limit: number,
  known?: Map<string, LogPosition>,
): Promise<GroupBatchResult> {
  const { knex, store } = deps;
  const from = known ?? (await readCheckpoints(knex, members.map((p) => p.name)));
  const least = members.map((p) => from.get(p.name)!).reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
  const types = [...new Set(members.flatMap((p) => eventTypesOf(p)))];
  const { events, horizon } = await store.readAll({ after: least, limit, types });
  const moving = members.filter((p) => comparePositions(horizon, from.get(p.name)!) > 0);
  if (!moving.length) return { applied: 0, delivered: 0, moved: false, positions: from };
  let delivered = 0;
  const moves = moving.map((p) => {
    const f = from.get(p.name)!;
    return { name: p.name, fc: f.commit.toString(), fp: f.prepare.toString(), tc: horizon.commit.toString(), tp: horizon.prepare.toString(), v: p.version };
  });
  const names = moving.map((p) => p.name).sort();
  const batchOf = (p: Projector) => {
    const mine = new Set(eventTypesOf(p));
    const after = from.get(p.name)!;
    return events.filter((e) => mine.has(e.type) && comparePositions(e.position, after) > 0);
  };
  const lost = { applied: -1, delivered: 0, moved: false, positions: from };
  // The first batch ever has no checkpoint row to move (the transaction's path inserts it).
  if (moving.every((p) => isScripted(p) && comparePositions(from.get(p.name)!, START) !== 0)) {
    const script: SqlStatement[] = [{ text: MOVE_GROUP_CHECKPOINTS_OR_FAIL, values: [names, JSON.stringify(moves), moving.length], reuse: true }];
    for (const p of moving as ScriptedProjector[]) {
      const batch = batchOf(p);
      if (batch.length) script.push(...p.batchStatements(batch, (t) => t));
      delivered += batch.length;
    }
    try {
      await runScript(knex, script);
    } catch (e) {
      if (isLostRace(e)) return lost;
      throw e;
    }
  } else {
    try {
      await knex.transaction(async (trx: Knex.Transaction) => {
        const moved = await runStatement<{ name: string }>(trx, { ...MOVE_GROUP_CHECKPOINTS, values: [names, JSON.stringify(moves)] });
        const movedNames = new Set(moved.map((r) => r.name));
        for (const p of moving) {
          if (movedNames.has(p.name)) continue;
          // The first batch ever has no checkpoint row to move; anything else missing is a lost race.
          if (comparePositions(from.get(p.name)!, START) !== 0 || !(await advanceCheckpoint(trx, p.name, START, horizon, p.version))) throw new LostRace();
        }
        for (const p of moving) {
          const batch = batchOf(p);
          if (batch.length) await p.apply({ trx, table: (t) => t }, batch);
          delivered += batch.length;
        }
      });
    } catch (e) {
      if (e instanceof LostRace) return lost;
      throw e;
    }
  }
  const positions = new Map(from);
  for (const p of moving) positions.set(p.name, horizon);
  return { applied: events.length, delivered, moved: true, positions };
}
