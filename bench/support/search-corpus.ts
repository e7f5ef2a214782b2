import crypto from 'node:crypto';
import type { CatalogFilingFields } from '../../commands/catalog/catalog-events';
import { demoRecords } from '../../infra/demo/generate';
import type { CatalogFilingRecord } from '../../infra/demo/catalog';
import type { IndexedFiling } from '../../src/ports/search-index';

/**
 * The demo data set's catalog filings (realistic rate, rule and form prose; text pages instead of
 * PDFs) as the SearchIndex port takes them, in batches, generated lazily so memory stays flat.
 */
export function* demoIndexedFilings(filings: number, batch: number): Generator<IndexedFiling[]> {
  let out: IndexedFiling[] = [];
  let position = 1n;
  for (const rec of demoRecords({ filings, pdf: false })) {
    const r = rec as CatalogFilingRecord;
    if (r.type !== 'catalog_filing') continue;
    const { type: _type, files, ...fields } = r;
    out.push({
      filing: fields as unknown as CatalogFilingFields,
      version: 1,
      position: position++,
      documents: files
        .filter((f) => f.text)
        .map((f) => ({
          fileId: f.fileId,
          name: f.name,
          versionId: f.versionId,
          textRevision: crypto.createHash('sha256').update(f.text!.pages.join('\f')).digest('hex').slice(0, 16),
          pages: f.text!.pages.map((text, i) => ({ page: i + 1, text })),
        })),
    });
    if (out.length >= batch) {
      yield out;
      out = [];
    }
  }
  if (out.length) yield out;
}

export function pagesOf(filings: IndexedFiling[]): number {
  return filings.reduce((n, f) => n + f.documents.reduce((m, d) => m + d.pages.length, 0), 0);
}
