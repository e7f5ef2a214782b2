import type { LogPosition } from '../../src/domain/events';
import type { Logger } from '../../src/util/logger';
import type { Projector } from '../projector';
import { runGroupBatch } from './group-batch';
import { runSingleBatch, type BatchDeps } from './single-batch';
import type { ProjectionWaiters } from './waiters';

/** While a write waits on a projector whose horizon is held back, it looks again after these pauses (ms). */
const WAITED_RETRY_MS = [0, 1, 2, 4, 8];
/**
 * After a batch that found none of its events, a projector that no write waits for ignores general
 * wake-ups this long. Every append wakes every projector; without this, each one ran a transaction
 * just to move its checkpoint on every watcher tick (11 projectors, 20 ticks/s under steady writes).
 */
const QUIET_MS = 200;

/** A runner's wake-up: a poke counter (so a poke during a batch is not lost), the sleeping loop's waker, and quiet mode. */
interface Wake {
  pokes: number;
  waker: (() => void) | null;
  /** Only a waiting write may wake it (see QUIET_MS). */
  quiet: boolean;
}

/**
 * Background catch-up subscriptions: one loop per projector (or run group), so a write waits only
 * for the projectors that serve it, never behind a slow one (the search index, say). Woken by
 * appends (local pokes and the store's notifications) and by a slow poll.
 */
export class ProjectionScheduler {
  private running = false;
  private readonly wake = new Map<string, Wake>();
  private loops: Promise<void>[] = [];
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly deps: BatchDeps,
    private readonly runners: Projector[][],
    private readonly waiters: ProjectionWaiters,
    private readonly log: Logger,
    private readonly batchSize: number,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    for (const members of this.runners) {
      // The members of a group share one waker: a write waiting on any of them wakes their runner.
      const w: Wake = { pokes: 0, waker: null, quiet: false };
      for (const p of members) this.wake.set(p.name, w);
    }
    this.unlisten = await this.deps.store.onAppended(() => this.poke());
    this.loops = this.runners.map((members) => this.runLoop(members));
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const name of this.wake.keys()) this.wakeProjector(name, true);
    this.waiters.abortAll();
    await Promise.all(this.loops);
    this.loops = [];
    if (this.unlisten) await this.unlisten();
  }

  /** New events may be readable: wake every projector (a write's own wait wakes just its projectors). */
  poke(): void {
    for (const name of this.wake.keys()) this.wakeProjector(name);
  }

  wakeProjector(name: string, forWrite = false): void {
    const w = this.wake.get(name);
    if (!w) return;
    w.pokes++;
    if (forWrite || !w.quiet) w.waker?.();
  }

  /** One batch of a runner; true when it applied events (or lost a race) and should go on at once. */
  private batchRunner(members: Projector[]): { run(): Promise<boolean>; forget(): void } {
    if (members.length === 1) {
      const p = members[0];
      // The checkpoint this runner last committed; forgotten after a lost race or an error.
      let known: LogPosition | undefined;
      return {
        run: async () => {
          const r = await runSingleBatch(this.deps, p, { checkpoint: p.name, table: (t) => t, limit: this.batchSize, known });
          known = r.applied < 0 ? undefined : r.position;
          this.waiters.note(p.name, r.position);
          // Only applied events (or a lost race) call for another batch at once. A checkpoint that merely
          // moved over other projectors' events does not: looping on it kept every projector spinning
          // under a steady stream of writes.
          return r.applied !== 0;
        },
        forget: () => (known = undefined),
      };
    }
    let known: Map<string, LogPosition> | undefined;
    return {
      run: async () => {
        const r = await runGroupBatch(this.deps, members, this.batchSize, known);
        known = r.applied < 0 ? undefined : r.positions;
        for (const [name, pos] of r.positions) this.waiters.note(name, pos);
        return r.applied !== 0;
      },
      forget: () => (known = undefined),
    };
  }

  private async runLoop(members: Projector[]): Promise<void> {
    let idle = 0;
    const batch = this.batchRunner(members);
    const w = this.wake.get(members[0].name)!;
    while (this.running) {
      let busy = false;
      // A poke during the batch must not be lost: compare the count before sleeping.
      const pokesAtStart = w.pokes;
      try {
        busy = await batch.run();
      } catch (e) {
        batch.forget();
        this.log.error({ err: e, projection: members.map((p) => p.name).join(', ') }, 'projection batch failed; retrying');
        await new Promise((r) => setTimeout(r, 500));
      }
      // Counts fruitless looks since the last progress or poke, to back off while a horizon stays held.
      idle = busy || w.pokes !== pokesAtStart ? 0 : idle + 1;
      if (busy || !this.running) continue;
      if (members.some((p) => this.waiters.waitedOn(p.name))) {
        // A write that waits here is not below the snapshot horizon yet (an older transaction is still
        // committing): look again within milliseconds instead of sleeping until the next poke.
        if (w.pokes === pokesAtStart) await this.sleep(w, WAITED_RETRY_MS[Math.min(idle, WAITED_RETRY_MS.length) - 1]);
        continue;
      }
      await this.sleep(w, QUIET_MS, true);
      if (w.pokes === pokesAtStart && this.running) await this.sleep(w, 1000);
    }
  }

  /** Sleeps up to `ms`, woken by a poke (in quiet mode, only by a waiting write's). */
  private sleep(w: Wake, ms: number, quiet = false): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      w.quiet = quiet;
      function done() {
        clearTimeout(timer);
        w.waker = null;
        w.quiet = false;
        resolve();
      }
      w.waker = done;
    });
  }
}
