import type { Knex } from 'knex';
import type { ExtractedText, FileRole } from '../../commands/catalog/catalog-events';
import { notFound } from '../../src/domain/errors';
import { canViewSerff, type Principal } from '../../src/identity/principal';

export interface StoredFile {
  fileId: string;
  filingId: string;
  ordinal: number;
  source: string;
  name: string;
  role: FileRole;
  versionId: string | null;
  mimeType: string;
  size: number | null;
  pageCount: number | null;
  restricted: boolean;
  contentSha256: string | null;
  text: ExtractedText | null;
}

interface FileRow {
  file_id: string;
  filing_id: string;
  ordinal: number;
  source: string;
  name: string;
  role: FileRole;
  version_id: string | null;
  mime_type: string;
  size: string | number | null;
  page_count: number | null;
  restricted: boolean;
  content_sha256: string | null;
  text: ExtractedText | null;
}

function toFile(r: FileRow): StoredFile {
  return {
    fileId: r.file_id,
    filingId: r.filing_id,
    ordinal: r.ordinal,
    source: r.source,
    name: r.name,
    role: r.role,
    versionId: r.version_id,
    mimeType: r.mime_type,
    size: r.size === null ? null : Number(r.size),
    pageCount: r.page_count,
    restricted: r.restricted,
    contentSha256: r.content_sha256,
    text: r.text,
  };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Reads of the files read model, with the serff:view rule applied in one place: a serff filing's
 * files are "not found" for a caller without the permission (DESIGN.md), indistinguishable from
 * files that do not exist.
 */
export class FilesReadModel {
  constructor(private readonly knex: Knex) {}

  private visible(principal: Principal, source: string): boolean {
    return source !== 'serff' || canViewSerff(principal);
  }

  async filing(principal: Principal, filingId: string): Promise<{ filingId: string; source: string; fileCount: number }> {
    if (!UUID.test(filingId)) throw notFound();
    const row = await this.knex('files_filings').where({ filing_id: filingId }).first();
    if (!row || !this.visible(principal, row.source)) throw notFound();
    return { filingId: row.filing_id, source: row.source, fileCount: row.file_count };
  }

  async file(principal: Principal, fileId: string): Promise<StoredFile> {
    if (!UUID.test(fileId)) throw notFound();
    const row = await this.knex('files_entries').where({ file_id: fileId }).first();
    if (!row || !this.visible(principal, row.source)) throw notFound();
    return toFile(row as FileRow);
  }

  /** Without the principal check: the signed download address carries the authorization. */
  async fileUnchecked(fileId: string): Promise<StoredFile | null> {
    if (!UUID.test(fileId)) return null;
    const row = await this.knex('files_entries').where({ file_id: fileId }).first();
    return row ? toFile(row as FileRow) : null;
  }

  async page(filingId: string, afterOrdinal: number, limit: number, maxOrdinal: number): Promise<StoredFile[]> {
    const rows = await this.knex('files_entries')
      .where({ filing_id: filingId })
      .andWhere('ordinal', '>', afterOrdinal)
      .andWhere('ordinal', '<', maxOrdinal)
      .orderBy('ordinal')
      .limit(limit);
    return (rows as FileRow[]).map(toFile);
  }

  /** A content version of a file (current or earlier), or null when this file never had it. */
  async version(fileId: string, version: string): Promise<{ contentSha256: string; size: number | null } | null> {
    const row = await this.knex('files_versions').where({ file_id: fileId, version }).first();
    return row ? { contentSha256: row.content_sha256, size: row.size === null ? null : Number(row.size) } : null;
  }
}
