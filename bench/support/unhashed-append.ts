import type { Knex } from 'knex';
import { timeOrderedUuid } from '../../infra/eventstore/time-ordered-uuid';
import { AppendBatcher } from '../../infra/eventstore/postgres-append-batch';
import type { AppendResult, EventMetadata, NewEvent } from '../../src/domain/events';

/**
 * The Postgres append as it was before the hash chain (infra/eventstore/postgres-append.ts before issue 23:
 * the same one-statement move-then-insert, the same batcher), kept here only as the "without hashing" side of
 * the event-hash-appends benchmark. Production has no unhashed append; this one writes events without hashes,
 * so the bench gives it streams of its own. Only the 'new' and 'exact' forms the benchmark uses.
 */
type Expectation = 'new' | 'exact';

const MOVE_STREAM: Record<Expectation, string> = {
  new: `insert into es_streams (stream_id, version) values ($1, $2::bigint) on conflict do nothing returning version`,
  exact: `update es_streams set version = version + $3::bigint where stream_id = $1 and version = $2::bigint returning version`,
};
const FIRST_EVENT_PARAM: Record<Expectation, number> = { new: 3, exact: 4 };

function singleSql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  return `with s as (${MOVE_STREAM[e]})
    insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata)
    select $${p}::uuid, $1, s.version, $${p + 1}::text, $${p + 2}::int, $${p + 3}::jsonb, $${p + 4}::jsonb from s
    returning global_position, transaction_id::text as tx, version`;
}

function manySql(e: Expectation): string {
  const p = FIRST_EVENT_PARAM[e];
  const count = e === 'exact' ? '$3' : '$2';
  return `with s as (${MOVE_STREAM[e]}),
    ins as (insert into es_events (event_id, stream_id, version, type, schema_version, data, metadata)
      select e.event_id, $1, s.version - ${count}::bigint + e.ord, e.type, e.schema_version, e.data, $${p + 4}::jsonb
      from s, unnest($${p}::uuid[], $${p + 1}::text[], $${p + 2}::int[], $${p + 3}::jsonb[])
        with ordinality as e(event_id, type, schema_version, data, ord)
      returning global_position, transaction_id::text as tx, version)
    select global_position, tx, version from ins order by version desc limit 1`;
}

const STATEMENTS = {
  one: { new: { name: 'bench_unhashed_one_new', text: singleSql('new') }, exact: { name: 'bench_unhashed_one_exact', text: singleSql('exact') } },
  many: { new: { name: 'bench_unhashed_many_new', text: manySql('new') }, exact: { name: 'bench_unhashed_many_exact', text: manySql('exact') } },
};

export class UnhashedAppender {
  private readonly batcher: AppendBatcher;

  constructor(knex: Knex) {
    this.batcher = new AppendBatcher(knex);
  }

  async append(streamId: string, events: NewEvent[], expectedVersion: number, metadata: EventMetadata): Promise<AppendResult> {
    const expectation: Expectation = expectedVersion === 0 ? 'new' : 'exact';
    const values: unknown[] = expectation === 'exact' ? [streamId, expectedVersion, events.length] : [streamId, events.length];
    const meta = JSON.stringify(metadata ?? {});
    if (events.length === 1) {
      const e = events[0];
      values.push(timeOrderedUuid(), e.type, e.schemaVersion ?? 1, JSON.stringify(e.data ?? {}), meta);
    } else {
      values.push(
        events.map(() => timeOrderedUuid()),
        events.map((e) => e.type),
        events.map((e) => e.schemaVersion ?? 1),
        events.map((e) => JSON.stringify(e.data ?? {})),
        meta,
      );
    }
    const statement = STATEMENTS[events.length === 1 ? 'one' : 'many'][expectation];
    const [row] = (await this.batcher.run({ streamId, ...statement, values })) as { tx: string; global_position: string; version: string }[];
    if (!row) throw new Error(`bench: unexpected version conflict on ${streamId}`);
    return { nextVersion: Number(row.version), position: { commit: BigInt(row.tx), prepare: BigInt(row.global_position) } };
  }
}
