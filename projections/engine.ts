import type { Knex } from 'knex';
import type { ProjectionWaits } from '../src/ports/projection-waits';
import type { EventStore } from '../src/ports/event-store';
import { withAdvisoryLock } from '../infra/postgres/database';
import { runStatement } from '../infra/postgres/prepared';
import type { LogPosition, RecordedEvent } from '../src/domain/events';
import { START, comparePositions } from '../src/domain/events';
import type { Logger } from '../src/util/logger';
import type { Projector, TableNamer } from './projector';
import type { SqlStatement } from './batch-sql';
import { runScript } from '../infra/postgres/sql-script';
import { ifAdvisoryLockFree, withSharedAdvisoryLock } from '../infra/postgres/advisory-locks';

const SHADOW = '__rb';
const SCHEMA_LOCK = 7262612;
/**
 * Held shared by every running rebuild for its whole run; a start removes shadow tables only when it can take it
 * exclusively at once, i.e. no rebuild runs anywhere (CLI commands open a runtime, so start, while one works).
 */
const REBUILD_LOCK = 7262614;
/** Lag is counted up to this many events (readiness compares it with IFRS_READY_MAX_LAG, default 10,000). */
const LAG_CAP = 1_000_000;

interface Waiter {
  position: LogPosition;
  /** This projector reached the position. */
  reached(): void;
  /** The engine stopped: the wait re-checks on its own. */
  abort(): void;
}

/** While a write waits on a projector whose horizon is held back, it looks again after these pauses (ms). */
const WAITED_RETRY_MS = [0, 1, 2, 4, 8];
/**
 * After a batch that found none of its events, a projector that no write waits for ignores general
 * wake-ups this long. Every append wakes every projector; without this, each one ran a transaction
 * just to move its checkpoint on every watcher tick (11 projectors, 20 ticks/s under steady writes).
 */
const QUIET_MS = 200;
/**
 * A run group's batch limit while catching up (CLI waits, benches): more events per log read and per
 * transaction than a background runner takes, whose batches sit on writes' read-your-writes path.
 */
const CATCH_UP_BATCH = 2000;

/**
 * A projector may name a run group: the projectors of one group share one runner, which reads the
 * log once for all of them and applies a batch to all of them in one transaction, moving all their
 * checkpoints in one statement. For read models that one write waits for together (a working filing
 * and its event history): the write then waits for one batch commit instead of one per projector, and
 * the database runs one transaction where it ran several. Also for read models fed by the same events
 * (an import's catalog, files and directories): the log is read and decoded once for all of them.
 * Each member keeps its own checkpoint and version, so rebuilds and status stay per projector
 * (catch-up runs the named members together).
 */
export interface GroupedProjector extends Projector {
  readonly runGroup?: string;
}

/**
 * A projector whose batch writes are statements computed from the events alone (no statement needs
 * what an earlier one read). When every member of a run group is one, the group's batch (locks,
 * checkpoint moves and every member's statements) travels as ONE multi-statement query: one round trip
 * where a batch took BEGIN, the move, a round trip per statement and COMMIT, each on every write's
 * read-your-writes path. `apply` must do the same as running these statements in order
 * (`runStatements`).
 */
export interface ScriptedProjector extends GroupedProjector {
  batchStatements(events: RecordedEvent[], table: TableNamer): SqlStatement[];
}

const isScripted = (p: Projector): p is ScriptedProjector => typeof (p as ScriptedProjector).batchStatements === 'function';

/** The error text by which a scripted group batch's move says that another runner moved a checkpoint first. */
const LOST_RACE_MARK = 'projection checkpoint moved by another runner';

/**
 * The scripted group batch's first statement: MOVE_GROUP_CHECKPOINTS, failing unless it moved all `$3`
 * members. A multi-statement query has no way to skip its later statements on a result, but an error
 * rolls the whole implicit transaction back, so a lost race applies nothing. The error comes from a
 * cast of text to int; it is built from the count so the planner cannot fold it into an error at
 * planning time.
 */
const MOVE_GROUP_CHECKPOINTS_OR_FAIL = (text: string) => `with moved as (${text})
    select case when count(*) = $3 then 0 else cast('${LOST_RACE_MARK}: ' || count(*) as int) end from moved`;

const isLostRace = (e: unknown) => (e as { code?: string }).code === '22P02' && String((e as Error).message).includes(LOST_RACE_MARK);

/**
 * A group batch's first statement: synchronous_commit off (safe as in step: the events are durable
 * and a lost batch is re-applied), every member's checkpoint lock in name order (so runners never
 * deadlock), then every member's checkpoint moved if nobody moved it meanwhile. One statement: the
 * uncorrelated sub-select takes the locks once, before any checkpoint row is updated, and a row that
 * another runner changed after this statement's snapshot is re-checked against its newest version
 * by Postgres (as for any concurrent UPDATE under read committed), so a lost race matches no row.
 * `$1` the member names sorted, `$2` the moves as JSON.
 */
const MOVE_GROUP_CHECKPOINTS = {
  name: 'projection_group_move',
  text: `update projection_checkpoints c set commit_position = cast(m.tc as numeric), prepare_position = cast(m.tp as numeric), version = m.v, updated_at = now()
    from jsonb_to_recordset($2::jsonb) as m(name text, fc text, fp text, tc text, tp text, v int)
    where (select count(pg_advisory_xact_lock(7262613, hashtext(n))) + length(set_config('synchronous_commit', 'off', true)) from unnest($1::text[]) as n) > 0
      and c.name = m.name and c.commit_position = cast(m.fc as numeric) and c.prepare_position = cast(m.fp as numeric)
    returning c.name`,
};

/**
 * A checkpoint moved over a range holding none of its projector's events, in one autocommitted
 * statement. Every projector does this under a steady stream of others' writes, so it was a large
 * share of all statements as a full batch (begin, lock, move, commit). The lock only keeps two
 * runners from applying the same events; with nothing to apply, the conditional update is enough: a
 * runner that moved the row first (even after this statement's snapshot) makes it match nothing.
 * synchronous_commit off as in step. `$1` name, `$2`/`$3` from, `$4`/`$5` to, `$6` version.
 */
const MOVE_CHECKPOINT_ALONE = {
  name: 'projection_move_alone',
  text: `update projection_checkpoints set commit_position = $4::numeric, prepare_position = $5::numeric, version = $6::int, updated_at = now()
    where name = $1 and commit_position = $2::numeric and prepare_position = $3::numeric
      and length(set_config('synchronous_commit', 'off', true)) > 0
    returning name`,
};

/** Thrown inside a group batch's transaction to roll it back when another runner moved a checkpoint first. */
class LostRace extends Error {}

interface Checkpoint {
  position: LogPosition;
  version: number;
}

export interface ProjectionStatus {
  name: string;
  position: number;
  lag: number;
  version: number;
}

export interface RebuildProgress {
  projector: string;
  events: number;
  position: LogPosition;
  head: LogPosition;
}

/**
 * Runs projectors as catch-up subscriptions. Each batch is one transaction that applies the events
 * and moves the checkpoint, so a crash anywhere loses nothing and applies nothing twice. Runners in
 * several processes may compete for one projector: the checkpoint row is locked, and a runner whose
 * starting point moved under it rolls back and rereads.
 */
export class ProjectionEngine implements ProjectionWaits {
  private readonly byName = new Map<string, Projector>();
  private readonly positions = new Map<string, LogPosition>();
  /** Read-your-writes waits per projector, released by the batch that reaches their position. */
  private readonly waiters = new Map<string, Set<Waiter>>();
  private running = false;
  private assist = true;
  /**
   * Per projector: a poke counter (so a poke during a step is not lost), the sleeping loop's waker,
   * and whether only a waiting write may wake it (see QUIET_MS).
   */
  private readonly wake = new Map<string, { pokes: number; waker: (() => void) | null; quiet: boolean }>();
  private loops: Promise<void>[] = [];
  private unlisten: (() => Promise<void>) | null = null;

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    projectors: Projector[],
    private readonly log: Logger,
    private readonly batchSize = 1000,
  ) {
    for (const p of projectors) this.byName.set(p.name, p);
  }

  /** The projectors each background runner serves: a run group's members together, every other one alone. */
  private runners(): Projector[][] {
    const groups = new Map<string, Projector[]>();
    const out: Projector[][] = [];
    for (const p of this.byName.values()) {
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

  get projectors(): Projector[] {
    return [...this.byName.values()];
  }

  private get(name: string): Projector {
    const p = this.byName.get(name);
    if (!p) throw new Error(`unknown projection: ${name} (known: ${[...this.byName.keys()].join(', ')})`);
    return p;
  }

  /**
   * Creates missing read models; upgrades existing ones in place (Projector.upgradeSchema: also those about to be
   * rebuilt, whose live tables keep serving and taking this release's events until the swap); rebuilds those
   * whose projector version changed.
   */
  async ensureSchemas(): Promise<void> {
    await this.removeInterruptedRebuilds();
    const stale: string[] = [];
    await withAdvisoryLock(this.knex, SCHEMA_LOCK, async () => {
      for (const p of this.byName.values()) {
        const cp = await this.readCheckpoint(this.knex, p.name);
        if (cp && p.upgradeSchema) await this.knex.transaction((trx) => p.upgradeSchema!(trx, (t) => t));
        if (!cp) {
          await this.knex.transaction(async (trx) => {
            await this.dropTables(trx, p, '');
            await p.createSchema(trx, (t) => t);
            if (p.createIndexes) await p.createIndexes(trx, (t) => t);
            await trx('projection_checkpoints').insert({ name: p.name, version: p.version }).onConflict('name').merge();
          });
        } else if (cp.version !== p.version) stale.push(p.name);
      }
    });
    if (stale.length) {
      this.log.info({ projections: stale }, 'projector versions changed: rebuilding');
      await this.rebuild(stale);
    }
  }

  /**
   * What a rebuild killed before its swap left behind (shadow tables, a search engine's shadow index, the shadow
   * checkpoint) is removed at the next start, unless a rebuild is running somewhere. The live tables are never
   * touched: a rebuild changes them only in its swap transaction.
   */
  private async removeInterruptedRebuilds(): Promise<void> {
    const ran = await ifAdvisoryLockFree(this.knex, REBUILD_LOCK, async () => {
      const projectors = [...this.byName.values()];
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
        await trx('projection_checkpoints').whereIn('name', checkpoints).delete();
      });
      this.log.info({ tables, checkpoints }, 'removed the leftovers of an interrupted projections rebuild');
    });
    if (!ran) this.log.info('a projections rebuild is running: its shadow tables are left to it');
  }

  private async readCheckpoint(db: Knex | Knex.Transaction, name: string): Promise<Checkpoint | null> {
    const res = await db.raw(
      `select commit_position::text as c, prepare_position::text as p, version from projection_checkpoints where name = ?`,
      [name],
    );
    const r = res.rows[0];
    return r ? { position: { commit: BigInt(r.c), prepare: BigInt(r.p) }, version: r.version } : null;
  }

  /**
   * Serialises runners of one checkpoint (across processes) until the transaction ends. An advisory
   * lock, not SELECT ... FOR UPDATE: a row lock assigns a transaction id at once, and every open
   * transaction id holds back the snapshot horizon that all subscribers read below.
   */
  private async lockCheckpoint(trx: Knex.Transaction, name: string): Promise<void> {
    await trx.raw(`select pg_advisory_xact_lock(7262613, hashtext(?))`, [name]);
  }

  private async writeCheckpoint(trx: Knex.Transaction, name: string, pos: LogPosition, version: number): Promise<void> {
    await trx.raw(
      `insert into projection_checkpoints (name, commit_position, prepare_position, version, updated_at) values (?, ?, ?, ?, now())
       on conflict (name) do update set commit_position = excluded.commit_position, prepare_position = excluded.prepare_position,
         version = excluded.version, updated_at = now()`,
      [name, pos.commit.toString(), pos.prepare.toString(), version],
    );
  }

  /**
   * Moves the checkpoint from `from` to `to` if nobody moved it meanwhile: one statement instead of a
   * locked re-read plus an upsert. Run after the advisory lock, so its snapshot already sees any
   * runner that held the lock before us. A missing row (the first batch ever) is inserted.
   */
  private async advanceCheckpoint(trx: Knex.Transaction, name: string, from: LogPosition, to: LogPosition, version: number): Promise<boolean> {
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

  /**
   * One batch for one projector. Returns the number of events applied, or -1 when another runner
   * moved the checkpoint first (the caller just tries again). `known` is the checkpoint this runner
   * last committed: it saves the unlocked read, and a stale one only costs a lost race.
   */
  private async step(p: Projector, checkpointName: string, table: TableNamer, limit: number, trxIn?: Knex.Transaction, known?: LogPosition): Promise<{ applied: number; position: LogPosition; moved: boolean }> {
    const from = known ?? ((await this.readCheckpoint(trxIn ?? this.knex, checkpointName))?.position ?? START);
    const { events, horizon } = await this.store.readAll({ after: from, limit, types: [...p.eventTypes] });
    if (comparePositions(horizon, from) <= 0) return { applied: 0, position: from, moved: false };
    if (!events.length && !trxIn && comparePositions(from, START) !== 0) {
      // Only other projectors' events: nothing to apply, so no transaction and no lock, just the move.
      const moved = await runStatement(this.knex, { ...MOVE_CHECKPOINT_ALONE, values: [checkpointName, from.commit.toString(), from.prepare.toString(), horizon.commit.toString(), horizon.prepare.toString(), p.version] });
      return moved.length ? { applied: 0, position: horizon, moved: true } : { applied: -1, position: from, moved: false };
    }
    const run = async (trx: Knex.Transaction) => {
      // synchronous_commit off is safe here: the read-model change and its checkpoint commit together
      // and the events are already durable, so a crash can only lose whole batches, which are re-applied
      // from the previous checkpoint. Not waiting for the fsync keeps this transaction's id, which holds
      // back every subscriber's snapshot horizon, open for a much shorter time. One round trip with the
      // lock: a batch is on every write's read-your-writes path.
      await trx.raw(`select set_config('synchronous_commit', 'off', true), pg_advisory_xact_lock(7262613, hashtext(?))`, [checkpointName]);
      // Checkpoint first: a lost race applies nothing (the transaction then commits empty).
      if (!(await this.advanceCheckpoint(trx, checkpointName, from, horizon, p.version))) return false;
      if (events.length) await p.apply({ trx, table }, events);
      return true;
    };
    const ok = trxIn ? await run(trxIn) : await this.knex.transaction(run);
    if (!ok) return { applied: -1, position: from, moved: false };
    return { applied: events.length, position: horizon, moved: true };
  }

  private async readCheckpoints(names: string[]): Promise<Map<string, LogPosition>> {
    const res = await this.knex.raw(
      `select name, commit_position::text as c, prepare_position::text as p from projection_checkpoints where name = any(?)`,
      [names],
    );
    const out = new Map<string, LogPosition>(names.map((n) => [n, START]));
    for (const r of res.rows as { name: string; c: string; p: string }[]) out.set(r.name, { commit: BigInt(r.c), prepare: BigInt(r.p) });
    return out;
  }

  /**
   * One batch for a run group: one read of the log from the least advanced member, then one
   * transaction that locks every member's checkpoint (in name order, so runners never deadlock),
   * moves them all with one conditional update and applies each member the events past its own
   * checkpoint. A member ahead of the others (rebuilt meanwhile, say) is left where it is.
   * `applied` is the number of events read, -1 when another runner moved a member's checkpoint first
   * (nothing was applied); `delivered` counts the events handed to members, `moved` whether any
   * checkpoint moved (false: nothing new was visible).
   */
  private async groupStep(
    members: Projector[],
    known?: Map<string, LogPosition>,
    limit = this.batchSize,
  ): Promise<{ applied: number; delivered: number; moved: boolean; positions: Map<string, LogPosition> }> {
    const from = known ?? (await this.readCheckpoints(members.map((p) => p.name)));
    const least = members.map((p) => from.get(p.name)!).reduce((a, b) => (comparePositions(a, b) <= 0 ? a : b));
    const types = [...new Set(members.flatMap((p) => p.eventTypes))];
    const { events, horizon } = await this.store.readAll({ after: least, limit, types });
    const moving = members.filter((p) => comparePositions(horizon, from.get(p.name)!) > 0);
    if (!moving.length) return { applied: 0, delivered: 0, moved: false, positions: from };
    let delivered = 0;
    const moves = moving.map((p) => {
      const f = from.get(p.name)!;
      return { name: p.name, fc: f.commit.toString(), fp: f.prepare.toString(), tc: horizon.commit.toString(), tp: horizon.prepare.toString(), v: p.version };
    });
    const names = moving.map((p) => p.name).sort();
    const batchOf = (p: Projector) => {
      const mine = new Set(p.eventTypes);
      const after = from.get(p.name)!;
      return events.filter((e) => mine.has(e.type) && comparePositions(e.position, after) > 0);
    };
    // The first batch ever has no checkpoint row to move (the transaction's path inserts it).
    if (moving.every((p) => isScripted(p) && comparePositions(from.get(p.name)!, START) !== 0)) {
      const script: SqlStatement[] = [{ text: MOVE_GROUP_CHECKPOINTS_OR_FAIL(MOVE_GROUP_CHECKPOINTS.text), values: [names, JSON.stringify(moves), moving.length], reuse: true }];
      for (const p of moving as ScriptedProjector[]) {
        const batch = batchOf(p);
        if (batch.length) script.push(...p.batchStatements(batch, (t) => t));
        delivered += batch.length;
      }
      try {
        await runScript(this.knex, script);
      } catch (e) {
        if (isLostRace(e)) return { applied: -1, delivered: 0, moved: false, positions: from };
        throw e;
      }
    } else {
      try {
        await this.knex.transaction(async (trx) => {
          const moved = await runStatement<{ name: string }>(trx, { ...MOVE_GROUP_CHECKPOINTS, values: [names, JSON.stringify(moves)] });
          const movedNames = new Set(moved.map((r) => r.name));
          for (const p of moving) {
            if (movedNames.has(p.name)) continue;
            // The first batch ever has no checkpoint row to move; anything else missing is a lost race.
            if (comparePositions(from.get(p.name)!, START) !== 0 || !(await this.advanceCheckpoint(trx, p.name, START, horizon, p.version))) throw new LostRace();
          }
          for (const p of moving) {
            const batch = batchOf(p);
            if (batch.length) await p.apply({ trx, table: (t) => t }, batch);
            delivered += batch.length;
          }
        });
      } catch (e) {
        if (e instanceof LostRace) return { applied: -1, delivered: 0, moved: false, positions: from };
        throw e;
      }
    }
    const positions = new Map(from);
    for (const p of moving) positions.set(p.name, horizon);
    return { applied: events.length, delivered, moved: true, positions };
  }

  private note(name: string, pos: LogPosition): void {
    const prev = this.positions.get(name);
    if (!prev || comparePositions(pos, prev) > 0) {
      this.positions.set(name, pos);
      const waiting = this.waiters.get(name);
      if (waiting)
        for (const w of waiting)
          if (comparePositions(pos, w.position) >= 0) {
            waiting.delete(w);
            w.reached();
          }
    }
  }

  /**
   * Applies everything currently visible, for the named projectors (all by default). The named members
   * of a run group catch up together, as their runner does: one read of the log and one transaction per
   * batch for all of them (an import's catalog, files and directory read models, say).
   */
  async catchUp(names?: string[]): Promise<number> {
    const wanted = new Set(names ? names.map((n) => this.get(n).name) : this.byName.keys());
    let total = 0;
    for (const members of this.runners()) {
      const mine = members.filter((p) => wanted.has(p.name));
      if (mine.length === 1) total += await this.catchUpAlone(mine[0]);
      else if (mine.length > 1) total += await this.catchUpGroup(mine);
    }
    return total;
  }

  private async catchUpAlone(p: Projector): Promise<number> {
    let total = 0;
    for (;;) {
      const r = await this.step(p, p.name, (t) => t, this.batchSize);
      if (r.applied < 0) continue;
      this.note(p.name, r.position);
      total += r.applied;
      if (!r.moved) return total;
    }
  }

  private async catchUpGroup(members: Projector[]): Promise<number> {
    let total = 0;
    let known: Map<string, LogPosition> | undefined;
    for (;;) {
      const r = await this.groupStep(members, known, CATCH_UP_BATCH);
      known = r.applied < 0 ? undefined : r.positions;
      if (r.applied < 0) continue;
      for (const [name, pos] of r.positions) this.note(name, pos);
      total += r.delivered;
      if (!r.moved) return total;
    }
  }

  /**
   * Background catch-up subscriptions: one loop per projector (or run group), so a write waits only
   * for the projectors that serve it, never behind a slow one (the search index, say). Woken by
   * appends (local pokes and the store's notifications) and by a slow poll.
   */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    const runners = this.runners();
    for (const members of runners) {
      // The members of a group share one waker: a write waiting on any of them wakes their runner.
      const w = { pokes: 0, waker: null, quiet: false };
      for (const p of members) this.wake.set(p.name, w);
    }
    this.unlisten = await this.store.onAppended(() => this.poke());
    this.loops = runners.map((members) => this.runLoop(members));
  }

  /** One batch of a runner; true when it applied events (or lost a race) and should go on at once. */
  private batchRunner(members: Projector[]): { run(): Promise<boolean>; forget(): void } {
    if (members.length === 1) {
      const p = members[0];
      // The checkpoint this runner last committed; forgotten after a lost race or an error.
      let known: LogPosition | undefined;
      return {
        run: async () => {
          const r = await this.step(p, p.name, (t) => t, this.batchSize, undefined, known);
          known = r.applied < 0 ? undefined : r.position;
          this.note(p.name, r.position);
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
        const r = await this.groupStep(members, known);
        known = r.applied < 0 ? undefined : r.positions;
        for (const [name, pos] of r.positions) this.note(name, pos);
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
      // A poke during the step must not be lost: compare the count before sleeping.
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
      if (members.some((p) => this.waiters.get(p.name)?.size)) {
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
  private sleep(w: { waker: (() => void) | null; quiet: boolean }, ms: number, quiet = false): Promise<void> {
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

  /** New events may be readable: wake every projector (a write's own wait wakes just its projectors). */
  poke(): void {
    for (const p of this.projectors) this.wakeProjector(p.name);
  }

  private wakeProjector(name: string, forWrite = false): void {
    const w = this.wake.get(name);
    if (!w) return;
    w.pokes++;
    if (forWrite || !w.quiet) w.waker?.();
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const p of this.projectors) this.wakeProjector(p.name, true);
    for (const waiting of this.waiters.values()) for (const w of [...waiting]) w.abort();
    await Promise.all(this.loops);
    this.loops = [];
    if (this.unlisten) await this.unlisten();
  }

  /**
   * Read-your-writes: resolves once every named projector has reached `position`, or rejects after
   * `timeoutMs`. With local runners the batch that reaches the position releases the wait (no
   * polling); without them (a CLI command next to a running server, say) it polls the checkpoints
   * that the other process writes.
   */
  async waitFor(names: string[], position: LogPosition, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const reached = (n: string) => {
      const p = this.positions.get(n);
      return !!p && comparePositions(p, position) >= 0;
    };
    while (!names.every(reached)) {
      if (Date.now() > deadline) throw new Error(`projections ${names.filter((n) => !reached(n)).join(', ')} did not reach the write within ${timeoutMs} ms`);
      if (this.running) {
        await this.untilReached(names.filter((n) => !reached(n)), position, deadline - Date.now() + 1);
      } else {
        // A lone CLI command projects what it waits for itself; an API process in a scaled-out
        // topology only watches the projector's checkpoints (see helpOtherRunners).
        if (this.assist) await this.catchUp(names.filter((n) => !reached(n)));
        for (const n of names) {
          const cp = await this.readCheckpoint(this.knex, n);
          if (cp) this.note(n, cp.position);
        }
        if (!names.every(reached)) await new Promise((r) => setTimeout(r, 20));
      }
    }
  }

  /** Registers with each named runner and wakes it; resolves when all reached `position`, on stop or after `ms`. */
  private untilReached(names: string[], position: LogPosition, ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const mine: [string, Waiter][] = [];
      let left = names.length;
      const finish = () => {
        clearTimeout(timer);
        for (const [n, w] of mine) this.waiters.get(n)?.delete(w);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      for (const n of names) {
        const w: Waiter = { position, reached: () => --left === 0 && finish(), abort: finish };
        let waiting = this.waiters.get(n);
        if (!waiting) this.waiters.set(n, (waiting = new Set()));
        waiting.add(w);
        mine.push([n, w]);
        this.wakeProjector(n, true);
      }
    });
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
    const head = await this.store.head();
    const out: ProjectionStatus[] = [];
    for (const p of this.byName.values()) {
      const cp = (await this.readCheckpoint(this.knex, p.name)) ?? { position: START, version: 0 };
      out.push({ name: p.name, position: Number(cp.position.prepare), lag: await this.lag(cp.position, head), version: cp.version });
    }
    return { projections: out, head: Number(head.prepare) };
  }

  /** The projections whose checkpoint has not reached `position` yet. */
  async behind(position: LogPosition): Promise<string[]> {
    const out: string[] = [];
    for (const p of this.byName.values()) {
      const cp = await this.readCheckpoint(this.knex, p.name);
      if (!cp || comparePositions(cp.position, position) < 0) out.push(p.name);
    }
    return out;
  }

  /**
   * Events between a checkpoint and the head, through the port (so it works on any adapter), capped
   * since readiness only compares it with a bound. Adapters that cannot count report 1 for "behind".
   */
  private async lag(from: LogPosition, head: LogPosition): Promise<number> {
    if (comparePositions(from, head) >= 0) return 0;
    return this.store.countBetween ? this.store.countBetween(from, head, LAG_CAP) : 1;
  }

  private async dropTables(trx: Knex.Transaction, p: Projector, suffix: string): Promise<void> {
    for (const t of p.tables) await trx.raw(`drop table if exists ?? cascade`, [t + suffix]);
  }

  /**
   * Rebuilds into shadow tables from the start of the log while the live tables keep serving, then
   * swaps them in one transaction that holds the live checkpoint (so no live batch interleaves).
   */
  async rebuild(names?: string[], onProgress?: (p: RebuildProgress) => void): Promise<{ rebuilt: string[]; events: number }> {
    return withSharedAdvisoryLock(this.knex, REBUILD_LOCK, () => this.rebuildHoldingLock(names, onProgress));
  }

  private async rebuildHoldingLock(names?: string[], onProgress?: (p: RebuildProgress) => void): Promise<{ rebuilt: string[]; events: number }> {
    const targets = names && names.length ? names.map((n) => this.get(n)) : this.projectors;
    let events = 0;
    for (const p of targets) {
      const shadow: TableNamer = (t) => t + SHADOW;
      const cpName = p.name + SHADOW;
      await this.knex.transaction(async (trx) => {
        await this.dropTables(trx, p, SHADOW);
        await p.createSchema(trx, shadow);
        await this.writeCheckpoint(trx, cpName, START, p.version);
      });
      let head = await this.store.head();
      let done = 0;
      let known: LogPosition | undefined = START;
      for (;;) {
        const r = await this.step(p, cpName, shadow, Math.max(this.batchSize, 5000), undefined, known);
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
        await this.lockCheckpoint(trx, p.name);
        // The last events since the catch-up, applied under the live checkpoint's lock.
        for (;;) {
          const r = await this.step(p, cpName, shadow, 5000, trx);
          if (r.applied > 0) done += r.applied;
          if (!r.moved) break;
        }
        const cp = (await this.readCheckpoint(trx, cpName))!;
        for (const t of p.tables) {
          await trx.raw(`drop table if exists ?? cascade`, [t]);
          await trx.raw(`alter table ?? rename to ??`, [t + SHADOW, t]);
        }
        if (p.promote) await p.promote(shadow);
        await this.writeCheckpoint(trx, p.name, cp.position, p.version);
        await trx('projection_checkpoints').where({ name: cpName }).delete();
        this.note(p.name, cp.position);
      });
      events += done;
    }
    return { rebuilt: targets.map((p) => p.name), events };
  }
}
