import type { Knex } from 'knex';
import type { EventStore } from './ports/event-store';
import type { ProjectionEngine } from '../projections/engine';
import type { LogPosition } from './domain/events';

export interface ReadinessReport {
  ok: boolean;
  details: Record<string, unknown>;
}

/**
 * What `/readyz` answers. Ready when the database answers and every projection that serves reads (the read
 * models and the search index alike) has caught up with the log head this process found at its start, and none
 * lags the head by more than `maxLag` events since. The first condition is latched once met: after a restart the
 * projections replay what was written before it at different speeds (the search index slowest), and a lag under
 * the bound for seconds meant the catalog listed filings that search did not find while the instance said ready.
 */
export class Readiness {
  private caughtUp = false;

  private constructor(
    private readonly engine: ProjectionEngine,
    private readonly knex: Knex,
    private readonly maxLag: number,
    private readonly startHead: LogPosition,
  ) {}

  static async atStart(deps: { engine: ProjectionEngine; store: EventStore; db: { knex: Knex }; config: { readyMaxLag: number } }): Promise<Readiness> {
    return new Readiness(deps.engine, deps.db.knex, deps.config.readyMaxLag, await deps.store.head());
  }

  async check(): Promise<ReadinessReport> {
    await this.knex.raw('select 1');
    const s = await this.engine.status();
    const lagging = s.projections.filter((p) => p.lag > this.maxLag).map((p) => p.name);
    const catchingUp = this.caughtUp ? [] : await this.engine.behind(this.startHead);
    if (!catchingUp.length) this.caughtUp = true;
    return { ok: !lagging.length && !catchingUp.length, details: { projections: s.projections, head: s.head, maxLag: this.maxLag, lagging, catchingUp } };
  }
}
