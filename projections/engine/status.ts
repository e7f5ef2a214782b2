import type { Knex } from 'knex';
import type { LogPosition } from '../../src/domain/events';
import { START, comparePositions } from '../../src/domain/events';
import type { EventStore } from '../../src/ports/event-store';
import type { Projector } from '../projector';
import { readCheckpoint } from './checkpoint-store';

/** Lag is counted up to this many events (readiness compares it with IFRS_READY_MAX_LAG, default 10,000). */
const LAG_CAP = 1_000_000;

export interface ProjectionStatus {
  name: string;
  position: number;
  lag: number;
  version: number;
}

/** Positions and lag (events between checkpoint and head, counted through the port and capped). */
export async function projectionStatus(knex: Knex, store: EventStore, projectors: Projector[]): Promise<{ projections: ProjectionStatus[]; head: number }> {
  const head = await store.head();
  const out: ProjectionStatus[] = [];
  for (const p of projectors) {
    const cp = (await readCheckpoint(knex, p.name)) ?? { position: START, version: 0 };
    out.push({ name: p.name, position: Number(cp.position.prepare), lag: await lag(store, cp.position, head), version: cp.version });
  }
  return { projections: out, head: Number(head.prepare) };
}

/** The projections whose checkpoint has not reached `position` yet. */
export async function projectionsBehind(knex: Knex, projectors: Projector[], position: LogPosition): Promise<string[]> {
  const out: string[] = [];
  for (const p of projectors) {
    const cp = await readCheckpoint(knex, p.name);
    if (!cp || comparePositions(cp.position, position) < 0) out.push(p.name);
  }
  return out;
}

/**
 * Events between a checkpoint and the head, through the port (so it works on any adapter), capped
 * since readiness only compares it with a bound. Adapters that cannot count report 1 for "behind".
 */
async function lag(store: EventStore, from: LogPosition, head: LogPosition): Promise<number> {
  if (comparePositions(from, head) >= 0) return 0;
  return store.countBetween ? store.countBetween(from, head, LAG_CAP) : 1;
}
