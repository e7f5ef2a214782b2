import type { Knex } from 'knex';
import type { ProjectionWaits } from '../src/ports/projection-waits';
import type { EventStore } from '../src/ports/event-store';
import type { LogPosition } from '../src/domain/events';
import type { Logger } from '../src/util/logger';
import type { Projector } from './projector';
import { readCheckpoint } from './engine/checkpoint-store';
import { catchUp } from './engine/catch-up';
import { runGroupsOf } from './engine/group-batch';
import { ProjectionRebuilder, type RebuildProgress } from './engine/rebuilder';
import { ProjectionScheduler } from './engine/scheduler';
import type { BatchDeps } from './engine/single-batch';
import { projectionStatus, projectionsBehind, type ProjectionStatus } from './engine/status';
import { ProjectionWaiters } from './engine/waiters';

export type { GroupedProjector, ScriptedProjector } from './projector';
export type { ProjectionStatus } from './engine/status';
export type { RebuildProgress } from './engine/rebuilder';

/**
 * Runs projectors as catch-up subscriptions. Each batch is one transaction that applies the events
 * and moves the checkpoint, so a crash anywhere loses nothing and applies nothing twice. Runners in
 * several processes may compete for one projector: the checkpoint row is locked, and a runner whose
 * starting point moved under it rolls back and rereads.
 *
 * The facade over the engine's parts (engine/): the checkpoint store, the single and group batch
 * paths, the background scheduler, catch-up, the rebuilder (schema lifecycle, shadow tables), the
 * read-your-writes waiters and status.
 */
export class ProjectionEngine implements ProjectionWaits {
  private readonly byName = new Map<string, Projector>();
  private readonly deps: BatchDeps;
  private readonly runners: Projector[][];
  private readonly waiters = new ProjectionWaiters();
  private readonly scheduler: ProjectionScheduler;
  private readonly rebuilder: ProjectionRebuilder;
  private assist = true;

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    projectors: Projector[],
    log: Logger,
    private readonly batchSize = 1000,
  ) {
    for (const p of projectors) this.byName.set(p.name, p);
    this.deps = { knex, store };
    this.runners = runGroupsOf(this.byName.values());
    this.scheduler = new ProjectionScheduler(this.deps, this.runners, this.waiters, log, batchSize);
    this.rebuilder = new ProjectionRebuilder(knex, store, this.waiters, log, batchSize);
  }

  get projectors(): Projector[] {
    return [...this.byName.values()];
  }

  private get(name: string): Projector {
    const p = this.byName.get(name);
    if (!p) throw new Error(`unknown projection: ${name} (known: ${[...this.byName.keys()].join(', ')})`);
    return p;
  }

  /** See ProjectionRebuilder.ensureSchemas. */
  async ensureSchemas(): Promise<void> {
    await this.rebuilder.ensureSchemas(this.projectors);
  }

  /**
   * Applies everything currently visible, for the named projectors (all by default). The named members
   * of a run group catch up together, as their runner does.
   */
  async catchUp(names?: string[]): Promise<number> {
    const wanted = new Set(names ? names.map((n) => this.get(n).name) : this.byName.keys());
    return catchUp(this.deps, this.runners, wanted, this.batchSize, this.waiters);
  }

  /** Starts the background runners (see ProjectionScheduler). */
  async start(): Promise<void> {
    await this.scheduler.start();
  }

  /** New events may be readable: wake every projector (a write's own wait wakes just its projectors). */
  poke(): void {
    this.scheduler.poke();
  }

  async stop(): Promise<void> {
    await this.scheduler.stop();
  }

  /**
   * Read-your-writes: resolves once every named projector has reached `position`, or rejects after
   * `timeoutMs`. With local runners the batch that reaches the position releases the wait (no
   * polling); without them (a CLI command next to a running server, say) it polls the checkpoints
   * that the other process writes.
   */
  async waitFor(names: string[], position: LogPosition, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const reached = (n: string) => this.waiters.reached(n, position);
    while (!names.every(reached)) {
      if (Date.now() > deadline) throw new Error(`projections ${names.filter((n) => !reached(n)).join(', ')} did not reach the write within ${timeoutMs} ms`);
      if (this.scheduler.isRunning) {
        await this.waiters.untilReached(names.filter((n) => !reached(n)), position, deadline - Date.now() + 1, (n) => this.scheduler.wakeProjector(n, true));
      } else {
        // A lone CLI command projects what it waits for itself; an API process in a scaled-out
        // topology only watches the projector's checkpoints (see helpOtherRunners).
        if (this.assist) await this.catchUp(names.filter((n) => !reached(n)));
        for (const n of names) {
          const cp = await readCheckpoint(this.knex, n);
          if (cp) this.waiters.note(n, cp.position);
        }
        if (!names.every(reached)) await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  /**
   * Whether a read-your-writes wait without a local runner may project by itself. True for CLI
   * commands (there may be no server at all); false for `serve --role api`, which leaves projection to
   * the projector processes instead of competing with them.
   */
  helpOtherRunners(assist: boolean): void {
    this.assist = assist;
  }

  /** Positions and lag (events between checkpoint and head, counted through the port and capped). */
  async status(): Promise<{ projections: ProjectionStatus[]; head: number }> {
    return projectionStatus(this.knex, this.store, this.projectors);
  }

  /** The projections whose checkpoint has not reached `position` yet. */
  async behind(position: LogPosition): Promise<string[]> {
    return projectionsBehind(this.knex, this.projectors, position);
  }

  /** See ProjectionRebuilder.rebuild: the named projectors, all by default. */
  async rebuild(names?: string[], onProgress?: (p: RebuildProgress) => void): Promise<{ rebuilt: string[]; events: number }> {
    const targets = names && names.length ? names.map((n) => this.get(n)) : this.projectors;
    return this.rebuilder.rebuild(targets, onProgress);
  }
}
