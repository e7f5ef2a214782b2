import type { Client, estypes } from '@elastic/elasticsearch';
import type { IndexedFiling } from '../../../src/ports/search-index';
import { filingDoc, pageDocs } from './documents';
import { filingDocId } from './mapping';

/**
 * Writes are at least once and idempotent. Nothing commits atomically with the Postgres checkpoint,
 * so the projection engine's order is: write here, wait for Elasticsearch's acknowledgement (and a
 * refresh, for read-your-writes), then commit the checkpoint. A crash in between re-applies the
 * batch, which is harmless because every document is written with `version_type: external[_gte]`
 * and the event's log position as its version: a replayed or older write never replaces newer data
 * (Elasticsearch answers 409, which counts as done).
 *
 * Per filing version v, in this order (each step idempotent, so a crash anywhere is repaired by the replay):
 * 1. read the filing document: if it holds a version newer than v, skip the filing;
 * 2. write the filing document (version v) listing its new page ids and the "retired" ids (earlier
 *    pages that the new version no longer has, plus any still pending from an interrupted write);
 * 3. write the page documents (version v) and delete the retired ids (version v, so a newer page survives);
 * 4. only if something was retired: rewrite the filing document with an empty retired list.
 * Because step 2 happens before 3, the filing document always names every page that may exist,
 * even when a replay merges versions (the projector keeps only a batch's last version per filing).
 */

/** Bulk bodies are flushed at about this size (Elasticsearch's default http.max_content_length is 100 MB). */
const BULK_BYTES = 8 * 1024 * 1024;
/** Elasticsearch versions are longs; the JSON client carries numbers, so stay within 2^53. */
function versionOf(x: IndexedFiling): number {
  const v = x.position !== undefined ? Number(x.position) : x.version;
  if (!Number.isSafeInteger(v) || v < 0) throw new Error(`search index: version ${String(x.position ?? x.version)} is not a usable external version`);
  return v;
}

type Op = [estypes.BulkOperationContainer, Record<string, unknown>?];

export class BulkWriter {
  constructor(private readonly client: Client) {}

  /** Sends operations in ~8 MB requests; a version conflict means newer data is there already and counts as done. */
  async run(ops: Op[]): Promise<void> {
    let body: unknown[] = [];
    let bytes = 0;
    const flush = async () => {
      if (!body.length) return;
      const res = await this.client.bulk({ operations: body, refresh: false });
      body = [];
      bytes = 0;
      if (!res.errors) return;
      for (const item of res.items) {
        const r = Object.values(item)[0]!;
        if (r.error && r.status !== 409) throw new Error(`search index: bulk ${r._id}: ${r.error.type}: ${r.error.reason ?? ''}`);
      }
    };
    for (const [action, doc] of ops) {
      body.push(action);
      bytes += 200;
      if (doc) {
        body.push(doc);
        const d = doc as { body?: string; text?: string[] };
        bytes += Buffer.byteLength(d.body ?? '') + (d.text ?? []).reduce((n, t) => n + Buffer.byteLength(t), 0) + 1000;
      }
      if (bytes >= BULK_BYTES) await flush();
    }
    await flush();
  }
}

export async function upsertFilings(client: Client, index: string, filings: IndexedFiling[]): Promise<void> {
  const latest = new Map<string, IndexedFiling>();
  for (const f of filings) if ((latest.get(f.filing.id)?.version ?? -1) < f.version) latest.set(f.filing.id, f);
  const items = [...latest.values()];
  if (!items.length) return;
  const prev = await client.mget<{ pageDocIds?: string[]; retiredDocIds?: string[] }>({
    index,
    ids: items.map((x) => filingDocId(x.filing.id)),
    _source_includes: ['pageDocIds', 'retiredDocIds'],
  });
  const writer = new BulkWriter(client);
  const heads: Op[] = [];
  const bodies: Op[] = [];
  const clears: Op[] = [];
  items.forEach((x, i) => {
    const v = versionOf(x);
    const found = prev.docs[i] as estypes.GetGetResult<{ pageDocIds?: string[]; retiredDocIds?: string[] }>;
    if (found.found && (found._version ?? 0) > v) return;
    const pages = pageDocs(x);
    const ids = new Set(pages.map((p) => p.id));
    const before = found.found ? [...(found._source?.pageDocIds ?? []), ...(found._source?.retiredDocIds ?? [])] : [];
    const retired = [...new Set(before)].filter((id) => !ids.has(id));
    const id = filingDocId(x.filing.id);
    const versioned = { _index: index, version: v, version_type: 'external_gte' as const };
    heads.push([{ index: { ...versioned, _id: id } }, filingDoc(x, [...ids], retired)]);
    for (const p of pages) bodies.push([{ index: { ...versioned, _id: p.id } }, p.body]);
    for (const r of retired) bodies.push([{ delete: { _index: index, _id: r, version: v, version_type: 'external' } }]);
    if (retired.length) clears.push([{ index: { ...versioned, _id: id } }, filingDoc(x, [...ids], [])]);
  });
  await writer.run(heads);
  await writer.run(bodies);
  await writer.run(clears);
}

/** Deletes filings and their pages (no version: the port's remove is unconditional). */
export async function removeFilings(client: Client, index: string, filingIds: string[]): Promise<void> {
  if (!filingIds.length) return;
  const prev = await client.mget<{ pageDocIds?: string[]; retiredDocIds?: string[] }>({ index, ids: filingIds.map(filingDocId), _source_includes: ['pageDocIds', 'retiredDocIds'] });
  const ops: Op[] = [];
  prev.docs.forEach((d, i) => {
    const doc = d as estypes.GetGetResult<{ pageDocIds?: string[]; retiredDocIds?: string[] }>;
    for (const id of [...(doc._source?.pageDocIds ?? []), ...(doc._source?.retiredDocIds ?? [])]) ops.push([{ delete: { _index: index, _id: id } }]);
    ops.push([{ delete: { _index: index, _id: filingDocId(filingIds[i]) } }]);
  });
  await new BulkWriter(client).run(ops);
}
