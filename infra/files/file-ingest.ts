import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { CatalogFile, ExtractedText } from '../../commands/catalog/catalog-events';
import type { BlobStore } from '../../src/ports/blob-store';
import type { Extractor, FileIngest, ImportFile } from '../../src/ports/file-ingest';
import { ImportRecordError } from '../../commands/import/record-importer';

export type { Extractor };

/** Plain text: the whole file is one page unless it carries form feeds. */
export const plainTextExtractor: Extractor = async (content, mimeType, name) => {
  if (mimeType.startsWith('text/') || /\.(txt|csv|md)$/i.test(name)) return { pages: content.toString('utf8').split('\f'), method: 'plain_text' };
  return null;
};

/** Pages joined with form feeds, with the byte offset of each page's start. */
export function joinPages(pages: string[]): { text: string; pageStarts: number[] } {
  const pageStarts: number[] = [];
  let offset = 0;
  for (let i = 0; i < pages.length; i++) {
    pageStarts.push(offset);
    offset += Buffer.byteLength(pages[i], 'utf8') + (i < pages.length - 1 ? 1 : 0);
  }
  return { text: pages.join('\f'), pageStarts };
}

/** Errors of reading a content path that say the path is wrong, not that the machine is. */
const UNREADABLE_PATH = new Set(['EISDIR', 'ENOENT', 'ENOTDIR', 'EACCES', 'EPERM', 'ELOOP', 'ENAMETOOLONG']);

export class BlobFileIngest implements FileIngest {
  /**
   * `originals`: where the original files go, when not with the other blobs: object storage, whatever their size,
   * since a download is a presigned GET there (src/container.ts).
   */
  constructor(
    private readonly blobs: BlobStore,
    private readonly extractors: Extractor[] = [plainTextExtractor],
    private readonly originals: BlobStore = blobs,
  ) {}

  private async readContent(file: ImportFile, baseDir: string): Promise<Buffer | null> {
    if (!file.content) return null;
    if ('base64' in file.content) return Buffer.from(file.content.base64, 'base64');
    const p = path.resolve(baseDir, file.content.path);
    if (!fs.existsSync(p)) throw new ImportRecordError(`file ${file.fileId}: content path not found: ${file.content.path}`);
    try {
      return await fs.promises.readFile(p);
    } catch (e) {
      // A path the line names that is no readable file (a directory, say) is that line's fault: reported
      // and skipped (OPERATIONS.md), where it used to abort the whole import. Other errors stay fatal.
      const code = (e as NodeJS.ErrnoException).code;
      if (code && UNREADABLE_PATH.has(code)) throw new ImportRecordError(`file ${file.fileId}: content path cannot be read (${code}): ${file.content.path}`);
      throw e;
    }
  }

  async prepare(file: ImportFile, baseDir: string): Promise<CatalogFile> {
    const content = await this.readContent(file, baseDir);
    const stored = content ? await this.originals.put(content) : null;
    let pages: string[] | null = file.text?.pages ?? null;
    let method: ExtractedText['method'] = 'provided';
    if (!pages && content) {
      for (const extract of this.extractors) {
        const r = await extract(content, file.mimeType, file.name);
        if (r) {
          pages = r.pages;
          method = r.method;
          break;
        }
      }
    }
    let text: ExtractedText | null = null;
    if (pages) {
      const joined = joinPages(pages);
      const t = await this.blobs.put(Buffer.from(joined.text, 'utf8'));
      text = {
        textRevision: crypto.createHash('sha256').update(`${t.sha256}:${joined.pageStarts.join(',')}`).digest('hex').slice(0, 16),
        textSha256: t.sha256,
        byteLength: t.size,
        pageStarts: joined.pageStarts,
        method,
      };
    }
    return {
      fileId: file.fileId,
      name: file.name,
      role: file.role,
      versionId: file.versionId,
      mimeType: file.mimeType,
      restricted: file.restricted,
      contentSha256: stored?.sha256 ?? null,
      size: stored?.size ?? null,
      pageCount: pages ? pages.length : null,
      text,
    };
  }
}
