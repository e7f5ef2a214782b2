import type { Knex } from 'knex';
import { CATALOG_FILING_EVENT_TYPES, type CatalogFilingEvent } from '../../commands/catalog/catalog-events';
import { assertNever } from '../../src/domain/decider';
import type { RecordedEvent } from '../../src/domain/events';
import type { ProjectionContext, Projector, TableNamer } from '../projector';
import { downloadVersionOf } from './file-version';

export const FILES_PROJECTION = 'catalog_files';

/**
 * Stored files of catalog filings: the inventory (in the record's order), each file's text location
 * and every content version ever seen (so a pinned download keeps working after a re-import).
 * Keeps its own copy of the filing's `source`, for the serff:view rule, instead of reading another
 * feature's read model.
 */
export class FilesProjector implements Projector {
  readonly name = FILES_PROJECTION;
  readonly version = 1;
  readonly tables = ['files_filings', 'files_entries', 'files_versions'];
  readonly eventTypes = CATALOG_FILING_EVENT_TYPES;

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

  async apply({ trx, table: t }: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    for (const raw of events) {
      const e = raw as unknown as CatalogFilingEvent;
      switch (e.type) {
        case 'CatalogFilingImported':
        case 'CatalogFilingUpdated': {
          const { filing, files } = e.data;
          // Conditional on the stream version: a replayed or older event changes nothing.
          const moved = await trx.raw(
            `insert into ${t('files_filings')} (filing_id, source, file_count, stream_version) values (?, ?, ?, ?)
             on conflict (filing_id) do update set source = excluded.source, file_count = excluded.file_count, stream_version = excluded.stream_version
             where ${t('files_filings')}.stream_version < excluded.stream_version returning filing_id`,
            [filing.id, filing.source, files.length, raw.version],
          );
          if (!moved.rows.length) break;
          await trx(t('files_entries')).where({ filing_id: filing.id }).delete();
          const rows = files.map((f, ordinal) => ({
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
            text: f.text ? JSON.stringify(f.text) : null,
          }));
          for (let i = 0; i < rows.length; i += 1000) {
            await trx(t('files_entries')).insert(rows.slice(i, i + 1000)).onConflict('file_id').merge();
          }
          const versions = files
            .filter((f) => f.contentSha256)
            .map((f) => ({ file_id: f.fileId, version: downloadVersionOf(f)!, content_sha256: f.contentSha256!, size: f.size }));
          for (let i = 0; i < versions.length; i += 1000) {
            await trx(t('files_versions')).insert(versions.slice(i, i + 1000)).onConflict(['file_id', 'version']).merge();
          }
          break;
        }
        default:
          assertNever(e);
      }
    }
  }
}
