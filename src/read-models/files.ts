import type { CatalogFile } from '../domain/events/catalog';

/** The stored files' read model (inventory, text locations, every content version): what an import waits for. */
export const FILES_PROJECTION = 'catalog_files';

/**
 * The opaque version a download pins (`File-Version-Id`): the source's versionId when the record gives
 * one, else an id derived from the original's content (`sha256-` + 32 hex digits of its SHA-256), so the
 * same bytes always get the same version and changed bytes a new one. Null when there is no content.
 */
export function downloadVersionOf(file: Pick<CatalogFile, 'versionId' | 'contentSha256'>): string | null {
  if (!file.contentSha256) return null;
  return file.versionId ?? `sha256-${file.contentSha256.slice(0, 32)}`;
}
