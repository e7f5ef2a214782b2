import type { Knex } from 'knex';
import type { CatalogFilingEvent } from '../../src/domain/events/catalog';
import { assertNever } from '../../src/domain/decider';
import type { EventCoverage, GroupedProjector, ProjectedEvent, ProjectionContext, TableNamer } from '../projector';
import { CATALOG_RUN_GROUP } from '../../src/read-models/catalog';
import { downloadVersionOf, FILES_PROJECTION } from '../../src/read-models/files';
import { lastByKey, upsertRows } from '../batch-sql';

const HANDLES = { CatalogFilingImported: 'applied', CatalogFilingUpdated: 'applied' } as const satisfies EventCoverage<CatalogFilingEvent>;

/**
 * Stored files of catalog filings: the inventory (in the record's order), each file's text location
 * and every content version ever seen (so a pinned download keeps working after a re-import).
 * Keeps its own copy of the filing's `source`, for the serff:view rule, instead of reading another
 * feature's read model.
 */
export class FilesProjector implements GroupedProjector<CatalogFilingEvent, typeof HANDLES> {
  readonly runGroup = CATALOG_RUN_GROUP;
  readonly name = FILES_PROJECTION;
  readonly version = 1;
  readonly tables = ['files_filings', 'files_entries', 'files_versions'];
  readonly handles = HANDLES;

  async createSchema(trx: Knex.Transaction, t: TableNamer): Promise<void> {
    await trx.raw(`
      create table ${t('files_filings')} (filing_id uuid primary key, source text not null, file_count int not null, stream_version int not null);
      create table ${t('files_entries')} (file_id uuid primary key, filing_id uuid not null, ordinal int not null, source text not null,
        name text not null, role text not null, version_id text, mime_type text not null, size bigint, page_count int,
        restricted boolean not null, content_sha256 text, text jsonb);
      create index on ${t('files_entries')} (filing_id, ordinal);
      create table ${t('files_versions')} (file_id uuid not null, version text not null, content_sha256 text not null, size bigint,
        primary key (file_id, version));
    `);
  }

  /**
   * One statement per table for the whole batch, equivalent to applying the events one by one: an
   * event applies when it is newer than the filing's row was before the batch; the filing row and its
   * entries come from its last applied event (each event carries the whole file list), where several
   * filings list the same file id the one whose event came last owns it (as the last of the
   * sequential upserts would), and the content versions of EVERY applied event are kept, since a
   * pinned download of a version that was current only in the middle of the batch must keep working.
   */
  async apply({ trx, table: t }: ProjectionContext, events: ProjectedEvent<CatalogFilingEvent, typeof HANDLES>[]): Promise<void> {
    const all = events.map((e) => {
      switch (e.type) {
        case 'CatalogFilingImported':
        case 'CatalogFilingUpdated':
          return { version: e.version, ...e.data };
        default:
          return assertNever(e);
      }
    });
    if (!all.length) return;
    // One index look-up per filing (see BatchedAppender: `= any(?)` on a table an import is filling
    // ran as a scan of the whole table).
    const before = await trx.raw(
      `select f.filing_id, f.stream_version from unnest(?::uuid[]) as s(id)
       cross join lateral (select filing_id, stream_version from ?? where filing_id = s.id offset 0) f`,
      [[...new Set(all.map((x) => x.filing.id))], t('files_filings')],
    );
    const prior = new Map((before.rows as { filing_id: string; stream_version: number }[]).map((r) => [r.filing_id, r.stream_version]));
    const applied = all.filter((x) => x.version > (prior.get(x.filing.id) ?? 0));
    if (!applied.length) return;
    const latest = lastByKey(applied, (x) => x.filing.id);
    await upsertRows(
      trx,
      t('files_filings'),
      latest.map((x) => ({ filing_id: x.filing.id, source: x.filing.source, file_count: x.files.length, stream_version: x.version })),
      { conflict: ['filing_id'], newerBy: 'stream_version' },
    );
    // Entries exist only for filings that have a row (both are written together), so only filings
    // seen before can have entries to drop; a fresh import deletes nothing.
    const known = latest.filter((x) => prior.has(x.filing.id)).map((x) => x.filing.id);
    if (known.length) await trx.raw(`delete from ?? where filing_id = any(?::uuid[])`, [t('files_entries'), known]);
    const entries = lastByKey(
      latest.flatMap(({ filing, files }) =>
        files.map((f, ordinal) => ({
          file_id: f.fileId,
          filing_id: filing.id,
          ordinal,
          source: filing.source,
          name: f.name,
          role: f.role,
          version_id: f.versionId,
          mime_type: f.mimeType,
          size: f.size,
          page_count: f.pageCount,
          restricted: f.restricted,
          content_sha256: f.contentSha256,
          text: f.text,
        })),
      ),
      (r) => r.file_id,
    );
    await upsertRows(trx, t('files_entries'), entries, { conflict: ['file_id'] });
    const versions = lastByKey(
      applied.flatMap(({ files }) =>
        files.filter((f) => f.contentSha256).map((f) => ({ file_id: f.fileId, version: downloadVersionOf(f)!, content_sha256: f.contentSha256!, size: f.size })),
      ),
      (r) => `${r.file_id}\u0000${r.version}`,
    );
    await upsertRows(trx, t('files_versions'), versions, { conflict: ['file_id', 'version'] });
  }
}
