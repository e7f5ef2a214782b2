import type { Knex } from 'knex';
import { eventHash, withoutHashes } from '../../../src/domain/event-hash';

/**
 * Tamper evidence (src/domain/event-hash.ts). The stream row keeps its last event's hash (`head_hash`),
 * which an append checks with the version and moves with it (infra/eventstore/postgres-append.ts: the
 * hashes are computed in node). Existing events get their chains here, in stream order; their recorded
 * times are cut to milliseconds first, the precision every reader (a JS Date) and the hash see.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    alter table es_streams add column head_hash text;
    update es_events set recorded_at = date_trunc('milliseconds', recorded_at) where recorded_at <> date_trunc('milliseconds', recorded_at);
  `);
  await backfillChains(knex);
}

interface Row {
  global_position: string;
  stream_id: string;
  version: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: Record<string, unknown>;
  recorded_at: Date;
}

const PAGE = 5000;

/** Chains every event that has none yet, in (stream, version) order; exported for its test. */
export async function backfillChains(knex: Knex): Promise<void> {
  let after: [string, number] = ['', 0];
  let prev: string | null = null;
  let prevStream: string | null = null;
  for (;;) {
    const rows = (
      await knex.raw(
        `select global_position, stream_id, version, type, schema_version, data, metadata, recorded_at from es_events
         where (stream_id, version) > (?, ?) order by stream_id, version limit ?`,
        [after[0], after[1], PAGE],
      )
    ).rows as Row[];
    if (!rows.length) break;
    const updates: { p: string; m: Record<string, unknown> }[] = [];
    const heads = new Map<string, string>();
    for (const r of rows) {
      if (r.stream_id !== prevStream) prev = null;
      prevStream = r.stream_id;
      const metadata = withoutHashes(r.metadata);
      const hash = eventHash({ streamId: r.stream_id, version: Number(r.version), type: r.type, schemaVersion: r.schema_version, data: r.data, metadata, recordedAt: r.recorded_at.toISOString(), prevHash: prev });
      updates.push({ p: String(r.global_position), m: { ...metadata, prevHash: prev, hash } });
      heads.set(r.stream_id, hash);
      prev = hash;
    }
    await knex.raw(
      `update es_events e set metadata = u.m from jsonb_to_recordset(?::jsonb) as u(p bigint, m jsonb) where e.global_position = u.p`,
      [JSON.stringify(updates)],
    );
    // A stream row's head is the hash of the event at its version; a stream cut by a page is set again by the next.
    await knex.raw(
      `update es_streams s set head_hash = h.hash from jsonb_to_recordset(?::jsonb) as h(stream_id text, hash text) where s.stream_id = h.stream_id`,
      [JSON.stringify([...heads].map(([stream_id, hash]) => ({ stream_id, hash })))],
    );
    const last = rows[rows.length - 1];
    after = [last.stream_id, Number(last.version)];
  }
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    update es_events set metadata = metadata - 'prevHash' - 'hash';
    alter table es_streams drop column head_hash;
  `);
}
