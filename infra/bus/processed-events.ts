import type { Knex } from 'knex';

/**
 * The ids of events a consumer group has handled (table bus_processed_events). Ids are recorded
 * only after the handler succeeded: a crash between the two makes the event come again, so the
 * handler must be idempotent; a crash after the record but before the offset commit is caught here.
 */
export class ProcessedEvents {
  constructor(private readonly knex: Knex) {}

  /** The subset of `ids` the group has already handled. */
  async seen(group: string, ids: string[]): Promise<Set<string>> {
    if (!ids.length) return new Set();
    const res = await this.knex.raw(`select event_id::text as id from bus_processed_events where group_name = ? and event_id = any(cast(? as uuid[]))`, [group, ids]);
    return new Set((res.rows as { id: string }[]).map((r) => r.id));
  }

  async record(group: string, ids: string[]): Promise<void> {
    if (!ids.length) return;
    await this.knex.raw(`insert into bus_processed_events (group_name, event_id) select ?, unnest(cast(? as uuid[])) on conflict do nothing`, [group, ids]);
  }

  /** Forgets ids older than the topic can redeliver (its retention plus a margin). */
  async prune(olderThanMs: number): Promise<number> {
    const res = await this.knex.raw(`delete from bus_processed_events where processed_at < now() - make_interval(secs => ?)`, [olderThanMs / 1000]);
    return res.rowCount ?? 0;
  }
}
