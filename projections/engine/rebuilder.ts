import type { Knex } from 'knex';
import type { LogPosition } from '../../src/domain/events';
import { START, comparePositions } from '../../src/domain/events';
import type { EventStore } from '../../src/ports/event-store';
import type { Logger } from '../../src/util/logger';
import { withAdvisoryLock } from '../../infra/postgres/database';
import { ifAdvisoryLockFree, withSharedAdvisoryLock } from '../../infra/postgres/advisory-locks';
import type { Projector, TableNamer } from '../projector';
import { deleteCheckpoints, lockCheckpoint, readCheckpoint, writeCheckpoint } from './checkpoint-store';
import { runSingleBatch } from './single-batch';
import type { ProjectionWaiters } from './waiters';

const SHADOW = '__rb';
const SCHEMA_LOCK = 7262612;
/**
 * Held shared by every running rebuild for its whole run; a start removes shadow tables only when it can take it
 * exclusively at once, i.e. no rebuild runs anywhere (CLI commands open a runtime, so start, while one works).
 */
const REBUILD_LOCK = 7262614;

export interface RebuildProgress {
  projector: string;
  events: number;
  position: LogPosition;
  head: LogPosition;
}

/**
 * The read models' schema lifecycle: creates missing ones, upgrades existing ones in place, and rebuilds into
 * shadow tables from the start of the log while the live tables keep serving, then swaps them in.
 */
export class ProjectionRebuilder {
  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    private readonly waiters: ProjectionWaiters,
    private readonly log: Logger,
    private readonly batchSize: number,
  ) {}

  /**
   * Creates missing read models; upgrades existing ones in place (Projector.upgradeSchema: also those about to be
   * rebuilt, whose live tables keep serving and taking this release's events until the swap); rebuilds those
   * whose projector version changed.
   */
  async ensureSchemas(projectors: Projector[]): Promise<void> {
    await this.removeInterruptedRebuilds(projectors);
    const stale: Projector[] = [];
    await withAdvisoryLock(this.knex, SCHEMA_LOCK, async () => {
      for (const p of projectors) {
        const cp = await readCheckpoint(this.knex, p.name);
        if (cp && p.upgradeSchema) await this.knex.transaction((trx) => p.upgradeSchema!(trx, (t) => t));
        if (!cp) {
          await this.knex.transaction(async (trx) => {
            await dropTables(trx, p, '');
            await p.createSchema(trx, (t) => t);
            if (p.createIndexes) await p.createIndexes(trx, (t) => t);
            await trx('projection_checkpoints').insert({ name: p.name, version: p.version }).onConflict('name').merge();
          });
        } else if (cp.version !== p.version) stale.push(p);
      }
    });
    if (stale.length) {
      this.log.info({ projections: stale.map((p) => p.name) }, 'projector versions changed: rebuilding');
      await this.rebuild(stale);
    }
  }

  /**
   * What a rebuild killed before its swap left behind (shadow tables, a search engine's shadow index, the shadow
   * checkpoint) is removed at the next start, unless a rebuild is running somewhere. The live tables are never
   * touched: a rebuild changes them only in its swap transaction.
   */
  private async removeInterruptedRebuilds(projectors: Projector[]): Promise<void> {
    const ran = await ifAdvisoryLockFree(this.knex, REBUILD_LOCK, async () => {
      const shadowTables = projectors.flatMap((p) => p.tables.map((t) => t + SHADOW));
      const tables = (
        await this.knex.raw(
          `select c.relname as name from pg_class c where c.relnamespace = current_schema()::regnamespace and c.relkind in ('r', 'p') and c.relname = any(?)`,
          [shadowTables],
        )
      ).rows.map((r: { name: string }) => r.name) as string[];
      const checkpoints = (await this.knex('projection_checkpoints').whereIn('name', projectors.map((p) => p.name + SHADOW)).pluck('name')) as string[];
      for (const p of projectors) await p.discardShadow?.((t) => t + SHADOW);
      if (!tables.length && !checkpoints.length) return;
      await this.knex.transaction(async (trx) => {
        for (const t of tables) await trx.raw(`drop table if exists ?? cascade`, [t]);
        await deleteCheckpoints(trx, checkpoints);
      });
      this.log.info({ tables, checkpoints }, 'removed the leftovers of an interrupted projections rebuild');
    });
    if (!ran) this.log.info('a projections rebuild is running: its shadow tables are left to it');
  }

  /**
   * Rebuilds into shadow tables from the start of the log while the live tables keep serving, then
   * swaps them in one transaction that holds the live checkpoint (so no live batch interleaves).
   */
  async rebuild(targets: Projector[], onProgress?: (p: RebuildProgress) => void): Promise<{ rebuilt: string[]; events: number }> {
    return withSharedAdvisoryLock(this.knex, REBUILD_LOCK, async () => {
      let events = 0;
      for (const p of targets) events += await this.rebuildOne(p, onProgress);
      return { rebuilt: targets.map((p) => p.name), events };
    });
  }

  private async rebuildOne(p: Projector, onProgress?: (p: RebuildProgress) => void): Promise<number> {
    const deps = { knex: this.knex, store: this.store };
    const shadow: TableNamer = (t) => t + SHADOW;
    const cpName = p.name + SHADOW;
    await this.knex.transaction(async (trx) => {
      await dropTables(trx, p, SHADOW);
      await p.createSchema(trx, shadow);
      await writeCheckpoint(trx, cpName, START, p.version);
    });
    let head = await this.store.head();
    let done = 0;
    let known: LogPosition | undefined = START;
    for (;;) {
      const r = await runSingleBatch(deps, p, { checkpoint: cpName, table: shadow, limit: Math.max(this.batchSize, 5000), known });
      known = r.applied < 0 ? undefined : r.position;
      if (r.applied > 0) done += r.applied;
      onProgress?.({ projector: p.name, events: done, position: r.position, head });
      if (!r.moved) break;
      if (comparePositions(r.position, head) >= 0) head = await this.store.head();
    }
    // After the bulk load, before the swap's lock: the live projector keeps running meanwhile, and the
    // few events that arrive during the build are applied with the indexes in place.
    if (p.createIndexes) await this.knex.transaction((trx) => p.createIndexes!(trx, shadow));
    await this.knex.transaction(async (trx) => {
      await lockCheckpoint(trx, p.name);
      // The last events since the catch-up, applied under the live checkpoint's lock.
      for (;;) {
        const r = await runSingleBatch(deps, p, { checkpoint: cpName, table: shadow, limit: 5000, trx });
        if (r.applied > 0) done += r.applied;
        if (!r.moved) break;
      }
      const cp = (await readCheckpoint(trx, cpName))!;
      for (const t of p.tables) {
        await trx.raw(`drop table if exists ?? cascade`, [t]);
        await trx.raw(`alter table ?? rename to ??`, [t + SHADOW, t]);
      }
      if (p.promote) await p.promote(shadow);
      await writeCheckpoint(trx, p.name, cp.position, p.version);
      await deleteCheckpoints(trx, [cpName]);
      this.waiters.note(p.name, cp.position);
    });
    return done;
  }
}

async function dropTables(trx: Knex.Transaction, p: Projector, suffix: string): Promise<void> {
  for (const t of p.tables) await trx.raw(`drop table if exists ?? cascade`, [t + suffix]);
}
