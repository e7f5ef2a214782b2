import type { Knex } from 'knex';
import type { RecordedEvent } from '../../src/domain/events';
import type { ProjectionContext, Projector, TableNamer } from '../../projections/projector';

/**
 * A read model that notices double application: it adds one per event (no upsert hides a replay)
 * and works one statement per event, so batches are slow enough to be killed in the middle.
 */
export class CountingProjector implements Projector {
  readonly name = 'test-counter';
  readonly version = 1;
  readonly tables = ['test_counts'];
  readonly handles = { TestCounted: 'applied' } as const;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`create table ${t('test_counts')} (stream_id text primary key, n bigint not null, last_version bigint not null)`);
  }

  async apply({ trx, table }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    for (const e of events) {
      await trx.raw(
        `insert into ${table('test_counts')} as c (stream_id, n, last_version) values (?, 1, ?)
         on conflict (stream_id) do update set n = c.n + 1, last_version = excluded.last_version`,
        [e.streamId, e.version],
      );
    }
  }
}
