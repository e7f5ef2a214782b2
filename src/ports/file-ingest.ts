import type { CatalogFile, ExtractedText, FileRole } from '../../commands/catalog/catalog-events';

/** A FILE of an import record (OPERATIONS.md), as given. */
export interface ImportFile {
  fileId: string;
  name: string;
  role: FileRole;
  versionId: string | null;
  mimeType: string;
  restricted: boolean;
  content: { path: string } | { base64: string } | null;
  text: { pages: string[] } | null;
}

/**
 * Stores a file's original and produces its extracted text (given pages, or extracted from the
 * original) as blobs, returning what the catalog events record. Deterministic for the same input,
 * so a re-import of an unchanged record yields an identical CatalogFile and appends nothing.
 */
export interface FileIngest {
  prepare(file: ImportFile, baseDir: string): Promise<CatalogFile>;
}

/** Text extraction of an original, by media type. Returns pages, or null when the type is not extractable. */
export type Extractor = (content: Buffer, mimeType: string, name: string) => Promise<{ pages: string[]; method: ExtractedText['method'] } | null>;
