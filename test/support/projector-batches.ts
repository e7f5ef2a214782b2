import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import knexFactory, { type Knex } from 'knex';
import type { RecordedEvent } from '../../src/domain/events';
import type { Projector, TableNamer } from '../../projections/projector';
import { freshDatabaseUrl } from './postgres';

/**
 * Pins a projector's batch semantics: the same events applied one per transaction (as a live
 * subscriber trickling behind single writes sees them), all in one batch (as a rebuild or a bulk
 * import sees them), in uneven batches, and replayed, must leave identical tables.
 */
export class ProjectorBench {
  private constructor(readonly knex: Knex) {}

  static async open(): Promise<ProjectorBench> {
    return new ProjectorBench(knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 0, max: 2 } }));
  }

  async close(): Promise<void> {
    await this.knex.destroy();
  }

  /** Fresh tables for one way of applying, under their own suffix. */
  async tables(p: Projector, suffix: string): Promise<TableNamer> {
    const t: TableNamer = (name) => `${name}_${suffix}`;
    await this.knex.transaction(async (trx) => {
      await p.createSchema(trx, t);
      await p.createIndexes?.(trx, t);
    });
    return t;
  }

  async apply(p: Projector, t: TableNamer, events: RecordedEvent[], batchSizes: number[] | 'all' | 'one'): Promise<void> {
    const sizes = batchSizes === 'all' ? [events.length] : batchSizes === 'one' ? events.map(() => 1) : batchSizes;
    let i = 0;
    for (let k = 0; i < events.length; k++) {
      const n = Math.max(1, sizes[k % sizes.length]);
      const batch = events.slice(i, i + n);
      await this.knex.transaction((trx) => p.apply({ trx, table: t }, batch));
      i += n;
    }
  }

  /** Every table of the projector, rows sorted by their whole JSON form (so order is not compared). */
  async dump(p: Projector, t: TableNamer): Promise<Record<string, string[]>> {
    const out: Record<string, string[]> = {};
    for (const name of p.tables) {
      const res = await this.knex.raw(`select to_jsonb(x)::text as j from ?? x order by 1`, [t(name)]);
      out[name] = (res.rows as { j: string }[]).map((r) => r.j);
    }
    return out;
  }

  /** Applies `events` one by one, all at once, in uneven batches and twice over; all must agree. */
  async assertBatchEquivalence(p: Projector, events: RecordedEvent[]): Promise<Record<string, string[]>> {
    const key = crypto.randomBytes(3).toString('hex');
    const one = await this.tables(p, `one${key}`);
    await this.apply(p, one, events, 'one');
    const expected = await this.dump(p, one);
    const all = await this.tables(p, `all${key}`);
    await this.apply(p, all, events, 'all');
    assert.deepEqual(await this.dump(p, all), expected, 'one batch of everything differs from one event per batch');
    const uneven = await this.tables(p, `unv${key}`);
    await this.apply(p, uneven, events, [3, 1, 2, 5]);
    assert.deepEqual(await this.dump(p, uneven), expected, 'uneven batches differ from one event per batch');
    await this.apply(p, all, events, 'all');
    await this.apply(p, all, events.slice(Math.floor(events.length / 2)), [2]);
    assert.deepEqual(await this.dump(p, all), expected, 'replaying the events changed the read model');
    return expected;
  }
}

let position = 0n;

/** A recorded event as the store would hand it to a projector (positions increase across calls). */
export function recorded(streamId: string, version: number, type: string, data: unknown): RecordedEvent {
  position++;
  return { eventId: crypto.randomUUID(), streamId, version, type, schemaVersion: 1, data, metadata: {}, position: { commit: 1n, prepare: position }, recordedAt: new Date(0) };
}

/** Numbers each stream's events 1, 2, 3 ... in the order given. */
export function inStreams(events: { stream: string; type: string; data: unknown }[]): RecordedEvent[] {
  const versions = new Map<string, number>();
  return events.map((e) => {
    const v = (versions.get(e.stream) ?? 0) + 1;
    versions.set(e.stream, v);
    return recorded(e.stream, v, e.type, e.data);
  });
}
