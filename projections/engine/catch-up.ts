import type { LogPosition } from '../../src/domain/events';
import type { Projector } from '../projector';
import { runGroupBatch } from './group-batch';
import { runSingleBatch, type BatchDeps } from './single-batch';
import type { ProjectionWaiters } from './waiters';

/**
 * A run group's batch limit while catching up (CLI waits, benches): more events per log read and per
 * transaction than a background runner takes, whose batches sit on writes' read-your-writes path.
 */
const CATCH_UP_BATCH = 2000;

/**
 * Applies everything currently visible for the named projectors of the runners. The named members
 * of a run group catch up together, as their runner does: one read of the log and one transaction per
 * batch for all of them (an import's catalog, files and directory read models, say).
 */
export async function catchUp(deps: BatchDeps, runners: Projector[][], wanted: Set<string>, batchSize: number, waiters: ProjectionWaiters): Promise<number> {
  let total = 0;
  for (const members of runners) {
    const mine = members.filter((p) => wanted.has(p.name));
    if (mine.length === 1) total += await catchUpAlone(deps, mine[0], batchSize, waiters);
    else if (mine.length > 1) total += await catchUpGroup(deps, mine, waiters);
  }
  return total;
}

async function catchUpAlone(deps: BatchDeps, p: Projector, batchSize: number, waiters: ProjectionWaiters): Promise<number> {
  let total = 0;
  for (;;) {
    const r = await runSingleBatch(deps, p, { checkpoint: p.name, table: (t) => t, limit: batchSize });
    if (r.applied < 0) continue;
    waiters.note(p.name, r.position);
    total += r.applied;
    if (!r.moved) return total;
  }
}

async function catchUpGroup(deps: BatchDeps, members: Projector[], waiters: ProjectionWaiters): Promise<number> {
  let total = 0;
  let known: Map<string, LogPosition> | undefined;
  for (;;) {
    const r = await runGroupBatch(deps, members, CATCH_UP_BATCH, known);
    known = r.applied < 0 ? undefined : r.positions;
    if (r.applied < 0) continue;
    for (const [name, pos] of r.positions) waiters.note(name, pos);
    total += r.delivered;
    if (!r.moved) return total;
  }
}
