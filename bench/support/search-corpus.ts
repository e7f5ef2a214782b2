import crypto from 'node:crypto';
import type { CatalogFilingFields } from '../../src/domain/events/catalog';
import { demoRecords } from '../../infra/demo/generate';
import type { CatalogFilingRecord } from '../../infra/demo/catalog';
import type { IndexedFiling, SearchDocument } from '../../src/ports/search-index';

/**
 * Keeps at most `budget` pages of a filing, taken round-robin across its documents (first pages first),
 * so every document keeps its opening pages and page numbers stay 1-based and contiguous. The demo
 * generator writes ~11 pages per filing; issue 4's benchmark set is 100,000 filings with ~500,000 pages.
 */
export function withPageBudget(documents: SearchDocument[], budget: number): SearchDocument[] {
  const keep = documents.map(() => 0);
  let left = budget;
  for (let depth = 0; left > 0; depth++) {
    let took = false;
    for (let d = 0; d < documents.length && left > 0; d++) {
      if (documents[d].pages.length > depth) {
        keep[d]++;
        left--;
        took = true;
      }
    }
    if (!took) break;
  }
  return documents.map((d, i) => ({ ...d, pages: d.pages.slice(0, keep[i]) })).filter((d) => d.pages.length);
}

/**
 * The demo data set's catalog filings (realistic rate, rule and form prose; text pages instead of
 * PDFs) as the SearchIndex port takes them, in batches, generated lazily so memory stays flat.
 * `pageBudget` caps the pages per filing (see withPageBudget); without it, every page is kept.
 */
export function* demoIndexedFilings(filings: number, batch: number, pageBudget = Infinity): Generator<IndexedFiling[]> {
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
      documents: withPageBudget(files
        .filter((f) => f.text)
        .map((f) => ({
          fileId: f.fileId,
          name: f.name,
          versionId: f.versionId,
          textRevision: crypto.createHash('sha256').update(f.text!.pages.join('\f')).digest('hex').slice(0, 16),
          pages: f.text!.pages.map((text, i) => ({ page: i + 1, text })),
        })), pageBudget),
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
