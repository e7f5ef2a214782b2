import crypto from 'node:crypto';
import type { Knex } from 'knex';
import type { EventStore } from '../../src/ports/event-store';
import type { Bus, Consumer } from '../../src/ports/bus';
import { START, comparePositions, type LogPosition, type RecordedEvent } from '../../src/domain/events';
import type { Logger } from '../../src/util/logger';

/** How often at most a checkpoint that moved only over other groups' events is written. */
const QUIET_SAVE_MS = 1000;

/**
 * The embedded bus: each consumer group is a catch-up subscription on the event store with its own
 * checkpoint (`bus:<group>` in projection_checkpoints). The checkpoint moves only after the handler
 * succeeded (at least once). One process per group works at a time: a session advisory lock on the
 * group's name elects it; the others stand by and take over if it dies.
 */
export class StoreBackedBus implements Bus {
  private readonly consumers = new Set<{ stop(): Promise<void> }>();

  constructor(private readonly knex: Knex, private readonly store: EventStore, private readonly log: Logger, private readonly batchSize = 100) {}

  private async checkpoint(name: string): Promise<LogPosition> {
    const res = await this.knex.raw(`select commit_position::text as c, prepare_position::text as p from projection_checkpoints where name = ?`, [name]);
    const r = res.rows[0];
    return r ? { commit: BigInt(r.c), prepare: BigInt(r.p) } : START;
  }

  private async save(name: string, pos: LogPosition): Promise<void> {
    await this.knex.raw(
      `insert into projection_checkpoints (name, commit_position, prepare_position, version, updated_at) values (?, ?, ?, 1, now())
       on conflict (name) do update set commit_position = excluded.commit_position, prepare_position = excluded.prepare_position, updated_at = now()`,
      [name, pos.commit.toString(), pos.prepare.toString()],
    );
  }

  async consume(group: string, types: readonly string[], handler: (events: RecordedEvent[]) => Promise<void>): Promise<Consumer> {
    const name = `bus:${group}`;
    const lockKey = crypto.createHash('sha256').update(name).digest().readInt32BE(0);
    let running = true;
    let wake: (() => void) | null = null;
    // Counts wake-ups, so one that arrives during a batch is not slept through.
    let pokes = 0;
    const unlisten = await this.store.onAppended(() => {
      pokes++;
      wake?.();
    });
    const sleep = (ms: number) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(done, ms);
        function done() {
          clearTimeout(t);
          resolve();
        }
        wake = done;
      });
    const loop = (async () => {
      let conn: any = null;
      /**
       * The checkpoint, known in memory while this process holds the group's lock (nobody else moves it
       * then). A move over other groups' events only is saved at most once a second: saving it on every
       * batch, and looping at once after it, kept the consumer spinning (three statements and a
       * synchronous commit per round trip) under any steady stream of writes it does not consume.
       */
      let pos: LogPosition | null = null;
      let saved: LogPosition | null = null;
      let savedAt = 0;
      try {
        while (running) {
          if (!conn) {
            // Taking the group's lock can fail like any query (the database may be down): retry, never reject the loop.
            let c: any = null;
            try {
              c = await this.knex.client.acquireConnection();
              const got = (await c.query('select pg_try_advisory_lock($1) as ok', [lockKey])).rows[0].ok;
              if (got) conn = c;
              else await this.knex.client.releaseConnection(c);
            } catch (e) {
              this.log.warn({ err: e, group }, 'bus consumer could not take its group lock; retrying');
              if (c) await this.knex.client.releaseConnection(c).catch(() => undefined);
            }
            if (!conn) {
              await sleep(1000);
              continue;
            }
          }
          try {
            const pokesAtStart = pokes;
            if (!pos) saved = pos = await this.checkpoint(name);
            const { events, horizon } = await this.store.readAll({ after: pos, limit: this.batchSize, types: [...types] });
            if (comparePositions(horizon, pos) > 0) {
              if (events.length) await handler(events);
              pos = horizon;
            }
            if (comparePositions(pos, saved!) > 0 && (events.length || Date.now() - savedAt >= QUIET_SAVE_MS)) {
              await this.save(name, pos);
              saved = pos;
              savedAt = Date.now();
            }
            // Nothing of ours: wait for the next append instead of reading again at once.
            if (!events.length && pokes === pokesAtStart) await sleep(1000);
          } catch (e) {
            this.log.error({ err: e, group }, 'bus consumer batch failed; retrying');
            // The lock lives in the session: if the database went away, so did the lock. Drop the session
            // and win the election again before the next batch, so two consumers never run at once.
            const lost = conn;
            conn = null;
            pos = null;
            await lost.query('select pg_advisory_unlock($1)', [lockKey]).catch(() => undefined);
            await this.knex.client.releaseConnection(lost).catch(() => undefined);
            await sleep(1000);
          }
        }
      } finally {
        if (conn) {
          // A move kept in memory only: saved before the lock goes, so a successor starts from it.
          if (pos && saved && comparePositions(pos, saved) > 0) await this.save(name, pos).catch(() => undefined);
          await conn.query('select pg_advisory_unlock($1)', [lockKey]).catch(() => undefined);
          await this.knex.client.releaseConnection(conn);
        }
      }
    })();
    const consumer = {
      stop: async () => {
        running = false;
        wake?.();
        await loop;
        await unlisten();
        this.consumers.delete(consumer);
      },
    };
    this.consumers.add(consumer);
    return consumer;
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
  }
}
