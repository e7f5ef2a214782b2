import type { CatalogFilingFields } from '../../../src/domain/events/catalog';
import type { IndexedFiling } from '../../../src/ports/search-index';
import { recordOf, segments } from '../postgres-search-index';
import { KIND_FILING, KIND_PAGE, pageDocId } from './mapping';

/** The filter and sort fields every document of a filing carries (the same values as the Postgres columns). */
export function filterFields(f: CatalogFilingFields): Record<string, unknown> {
  return {
    filingId: f.id,
    source: f.source,
    referenceKey: f.sourceReference.toUpperCase(),
    state: f.state.toUpperCase(),
    companyName: f.companyName,
    productName: f.productName,
    naicCompanyCodes: f.naicCompanyCodes ?? [],
    naicGroupCode: f.naicGroupCode,
    carrierIds: f.carrierIds ?? [],
    groupId: f.groupId,
    toiCode: f.toiCode,
    subToiCode: f.subToiCode,
    normalizedOutcome: f.normalizedOutcome,
    filingTypeNormalized: f.filingTypeNormalized,
    submissionDate: f.submissionDate,
    dispositionDate: f.dispositionDate,
    stateStatusChangedDate: f.stateStatusChangedDate,
    meta: [f.companyName, f.productName, f.typeOfInsurance, f.subTypeOfInsurance, f.filingType, f.description ?? ''].join(' \n '),
  };
}

export interface PageDoc {
  id: string;
  body: Record<string, unknown>;
}

/**
 * The page documents of one filing version, with deterministic ids. No filter fields or metadata: pages are
 * only ever read by filing id (ranking and filters work on filing documents), and every byte here is read
 * again when passages fetch the page.
 */
export function pageDocs(x: IndexedFiling): PageDoc[] {
  const out: PageDoc[] = [];
  for (const d of x.documents) {
    for (const p of d.pages) {
      const segs = segments(p.text);
      for (let s = 0; s < segs.length; s++) {
        out.push({
          id: pageDocId(x.filing.id, d.fileId, p.page, s),
          body: { kind: KIND_PAGE, filingId: x.filing.id, fileId: d.fileId, fileName: d.name, versionId: d.versionId, page: p.page, segment: s, body: segs[s] },
        });
      }
    }
  }
  return out;
}

/**
 * The filing document: metadata, file names and every page's text (what ranking reads), the record
 * search results return, and which page documents exist.
 */
export function filingDoc(x: IndexedFiling, pageDocIds: string[], retiredDocIds: string[]): Record<string, unknown> {
  return {
    kind: KIND_FILING,
    ...filterFields(x.filing),
    fileName: x.documents.map((d) => d.name),
    text: x.documents.flatMap((d) => d.pages.flatMap((p) => segments(p.text))),
    record: recordOf(x.filing),
    pageDocIds,
    retiredDocIds,
  };
}
