import { catalogFilingRecord, type CatalogFilingImportRecord } from './catalog-filing-schema';
import { fastCatalogFilingRecord } from './catalog-filing-fast-check';
import { assertStorableText, parseRecord } from '../import/record-schema';

/**
 * A `catalog_filing` record parsed: the hand-checked fast path for the common valid record, the zod
 * schema (acceptance and error messages) for everything else.
 */
export function parseCatalogFilingRecord(record: Record<string, unknown>): CatalogFilingImportRecord {
  const parsed = fastCatalogFilingRecord(record) ?? parseRecord(catalogFilingRecord, record);
  // What goes into the event must be storable; page texts and base64 originals are stored as blobs.
  const { files, ...fields } = parsed;
  assertStorableText(fields);
  files.forEach(({ text: _text, content, ...file }, i) => {
    assertStorableText(file, ['files', i]);
    if (content && 'path' in content) assertStorableText(content.path, ['files', i, 'content', 'path']);
  });
  return parsed;
}
