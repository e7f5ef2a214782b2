import crypto from 'node:crypto';
import { START, type LogPosition } from '../../../src/domain/events';
import type { Runtime } from '../../../src/runtime';

/**
 * Every read-model table's row count and an order-independent checksum of its rows: two states with
 * equal fingerprints hold the same rows, so a live read model can be compared with a rebuild from the log.
 */
export async function readModelFingerprint(rt: Runtime): Promise<Record<string, { rows: number; md5: string }>> {
  const out: Record<string, { rows: number; md5: string }> = {};
  for (const p of rt.engine.projectors) {
    for (const table of p.tables) {
      const r = await rt.db.knex.raw(
        `select count(*)::int as rows, md5(coalesce(string_agg(h, '' order by h), '')) as md5 from (select md5(t::text) as h from ?? t) s`,
        [table],
      );
      out[table] = r.rows[0];
    }
  }
  return out;
}

export interface CheckpointLock {
  /** The client address of the session holding the lock: which host is in the middle of a batch. */
  address: string;
  checkpoint: string;
}

/**
 * The projection checkpoints whose batch lock (`pg_advisory_xact_lock(7262613, hashtext(name))`,
 * projections/engine/checkpoint-store.ts) some session holds right now: a runner is in the middle of that batch.
 */
export async function heldCheckpointLocks(rt: Runtime): Promise<CheckpointLock[]> {
  const r = await rt.db.knex.raw(`
    select host(a.client_addr) as address, c.name as checkpoint
      from pg_locks l
      join pg_stat_activity a on a.pid = l.pid
      join projection_checkpoints c on (hashtext(c.name)::bigint & 4294967295) = l.objid::text::bigint
     where l.locktype = 'advisory' and l.granted and l.objsubid = 2 and l.classid::text::bigint = 7262613 and a.client_addr is not null`);
  return r.rows;
}

/** A checkpoint's whole log position (commit, prepare), comparable with the store's head; START when it has none yet. */
export async function checkpointPosition(rt: Runtime, name: string): Promise<LogPosition> {
  const r = await rt.db.knex.raw(`select commit_position::text as c, prepare_position::text as p from projection_checkpoints where name = ?`, [name]);
  const row = (r.rows as { c: string; p: string }[])[0];
  return row ? { commit: BigInt(row.c), prepare: BigInt(row.p) } : START;
}

/** Checkpoint positions by name. */
export async function checkpointPositions(rt: Runtime): Promise<Map<string, bigint>> {
  const r = await rt.db.knex.raw(`select name, prepare_position::text as p from projection_checkpoints`);
  return new Map((r.rows as { name: string; p: string }[]).map((x) => [x.name, BigInt(x.p)]));
}

/**
 * The Elasticsearch search index behind `alias` (the search read model when ELASTICSEARCH_URL is set, which has no
 * Postgres table): its document count and an order-independent checksum of every document's id and source.
 */
export async function searchIndexFingerprint(esUrl: string, alias: string): Promise<{ docs: number; md5: string }> {
  const es = async (method: string, p: string, body?: unknown) => {
    const r = await fetch(`${esUrl}${p}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!r.ok) throw new Error(`Elasticsearch ${method} ${p}: ${r.status} ${await r.text()}`);
    return (await r.json()) as { _scroll_id?: string; hits: { hits: { _id: string; _source: unknown }[] } };
  };
  await es('POST', `/${alias}/_refresh`);
  const hashes: string[] = [];
  let page = await es('POST', `/${alias}/_search?scroll=1m`, { size: 1000, sort: ['_doc'], query: { match_all: {} } });
  while (page.hits.hits.length) {
    for (const h of page.hits.hits) hashes.push(crypto.createHash('md5').update(`${h._id}\n${JSON.stringify(h._source)}`).digest('hex'));
    page = await es('POST', '/_search/scroll', { scroll: '1m', scroll_id: page._scroll_id });
  }
  if (page._scroll_id) await es('DELETE', '/_search/scroll', { scroll_id: page._scroll_id });
  hashes.sort();
  return { docs: hashes.length, md5: crypto.createHash('md5').update(hashes.join('')).digest('hex') };
}
