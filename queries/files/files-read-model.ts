import type { Knex } from 'knex';
import type { ExtractedText, FileRole } from '../../src/domain/events/catalog';
import { notFound } from '../../src/domain/errors';
import { runStatement } from '../../infra/postgres/prepared';
import { canViewSerff, type Principal } from '../../src/domain/principal';
import { UUID_ANY_CASE } from '../../src/domain/uuid';

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

/** What the text route needs of a file, with the requested slice when the text blob lives in Postgres. */
export interface TextChunkRow {
  fileId: string;
  text: { textRevision: string; textSha256: string; byteLength: number } | null;
  /**
   * The slice cut back to a character boundary, decoded, with its byte length; null when the blob is not
   * in Postgres (the filesystem holds it) or could not be decoded.
   */
  slice: { text: string; bytes: number } | null;
}

interface TextChunkSqlRow {
  file_id: string;
  source: string;
  text_revision: string | null;
  text_sha256: string | null;
  byte_length: number | null;
  slice_text: string | null;
  slice_bytes: number | null;
}

/**
 * The file, its text's location and the slice in one statement: the blob of a text up to 256 KiB is a row
 * of blob_small (infra/blobs/tiered-blob-store.ts, keyed by content hash, so a row found is the text).
 * The slice is cut in SQL: a cut that is not at the end of the text drops the bytes of a character it
 * splits (a lead byte in the last three bytes whose sequence runs past the cut; the stored text is valid
 * UTF-8, written from a JS string), then decoded by Postgres: bytea travels as hex text, twice the bytes,
 * which node would decode from hex and then from UTF-8 again. (Postgres's to_json escapes more slowly than
 * node does: the JSON escaping stays in node.) `offset 0` keeps the slice a subquery of its own: pulled
 * up, every reference to it would fetch it from TOAST again. Lookups by primary key only, so one
 * generic plan serves every file: a named statement.
 */
const TEXT_CHUNK = {
  name: 'files_text_chunk',
  text: `
    select e.file_id, e.source, e.text->>'textRevision' as text_revision, e.text->>'textSha256' as text_sha256,
      (e.text->>'byteLength')::int8 as byte_length,
      convert_from(substring(c.chunk from 1 for c.keep), 'UTF8') as slice_text, c.keep as slice_bytes
    from files_entries e
    left join blob_small b on e.text is not null and b.sha256 = e.text->>'textSha256'
    left join lateral (
      select s.chunk, case
          when s.len = 0 or $2::int8 + s.len >= b.size then s.len
          when get_byte(s.chunk, s.len - 1) >= 192 then s.len - 1
          when get_byte(s.chunk, s.len - 1) < 128 then s.len
          when get_byte(s.chunk, s.len - 2) >= 224 then s.len - 2
          when get_byte(s.chunk, s.len - 2) >= 128 and get_byte(s.chunk, s.len - 2) < 192 and get_byte(s.chunk, s.len - 3) >= 240 then s.len - 3
          else s.len
        end as keep
      from (select x.chunk, octet_length(x.chunk) as len from (select substring(b.content from least($2::int8 + 1, 2147483647)::int4 for $3::int4) as chunk offset 0) x) s
    ) c on b.sha256 is not null
    where e.file_id = $1::uuid`,
};

/** Postgres could not decode the stored bytes as text (a NUL, which text cannot hold): the caller decodes them. */
const UNDECODABLE = new Set(['22021', '22P05', '54000']);


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
    if (!UUID_ANY_CASE.test(filingId)) throw notFound();
    const row = await this.knex('files_filings').where({ filing_id: filingId }).first();
    if (!row || !this.visible(principal, row.source)) throw notFound();
    return { filingId: row.filing_id, source: row.source, fileCount: row.file_count };
  }

  async file(principal: Principal, fileId: string): Promise<StoredFile> {
    if (!UUID_ANY_CASE.test(fileId)) throw notFound();
    const row = await this.knex('files_entries').where({ file_id: fileId }).first();
    if (!row || !this.visible(principal, row.source)) throw notFound();
    return toFile(row as FileRow);
  }

  /**
   * The text route's read: the file (404 unless visible), its text's location and, when the blob is in
   * Postgres, [start, start + length) of the text cut back to a character boundary (see TEXT_CHUNK). `signal`:
   * the request's; the read is cancelled when its client goes away.
   */
  async textChunk(principal: Principal, fileId: string, start: number, length: number, signal?: AbortSignal): Promise<TextChunkRow> {
    if (!UUID_ANY_CASE.test(fileId)) throw notFound();
    let rows: TextChunkSqlRow[];
    try {
      rows = await runStatement<TextChunkSqlRow>(this.knex, { ...TEXT_CHUNK, values: [fileId, start, length] }, signal);
    } catch (e) {
      if (!UNDECODABLE.has((e as { code?: string }).code ?? '')) throw e;
      rows = await runStatement<TextChunkSqlRow>(this.knex, { ...TEXT_CHUNK, values: [fileId, start, 0] }, signal);
      if (rows[0]) rows[0].slice_text = null;
    }
    const row = rows[0];
    if (!row || !this.visible(principal, row.source)) throw notFound();
    return {
      fileId: row.file_id,
      text: row.text_sha256 === null ? null : { textRevision: row.text_revision!, textSha256: row.text_sha256, byteLength: row.byte_length! },
      slice: row.slice_text === null ? null : { text: row.slice_text, bytes: row.slice_bytes! },
    };
  }

  /** Without the principal check: the signed download address carries the authorization. */
  async fileUnchecked(fileId: string): Promise<StoredFile | null> {
    if (!UUID_ANY_CASE.test(fileId)) return null;
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
