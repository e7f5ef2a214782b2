import crypto from 'node:crypto';
import PDFDocument from 'pdfkit';
import type { CatalogFile, CatalogFilingFields } from '../../src/domain/events/catalog';
import type { Runtime } from '../../src/runtime';
import type { FileIngest, ImportFile } from '../../src/ports/file-ingest';
import { TOKENS } from '../../src/ports/tokens';

/**
 * Object mother for catalog filings and their files. The catalog importer (another feature) appends
 * these events in production; tests of the files and search read models produce them directly,
 * through the real FileIngest, so blobs and text extraction are the real ones.
 */
let seq = 0;

export function aFiling(o: Partial<CatalogFilingFields> = {}): CatalogFilingFields {
  seq++;
  const source = o.source ?? 'florida_irfs';
  return {
    id: crypto.randomUUID(),
    source,
    sourceReference: source === 'serff' ? `ACME-1${String(seq).padStart(8, '0')}` : `26-0${String(10000 + seq)}`,
    state: 'FL',
    companyName: 'Acme Property and Casualty Insurance Company',
    naicCompanyCodes: ['12345'],
    naicGroupCode: '123',
    carrierIds: ['carrier_12345'],
    groupId: 'carrier_group_123',
    productName: 'Homeowners Program',
    typeOfInsurance: 'Homeowners',
    subTypeOfInsurance: 'Homeowners Multi-Peril',
    toiCode: '04.0',
    subToiCode: '04.0000',
    filingType: 'Rate',
    sourceStatus: 'Approved',
    submissionDate: '2024-03-01',
    dispositionDate: '2024-05-01',
    businessType: 'Property & Casualty',
    normalizedOutcome: 'APPROVED',
    filingTypeNormalized: 'RATE',
    stateStatusChangedDate: '2024-05-01',
    description: 'A filing made by the test object mother.',
    ...o,
  };
}

/** A file given by its page texts (the import's `text.pages`), without an original. */
export function aTextFile(pages: string[], o: Partial<ImportFile> = {}): ImportFile {
  return {
    fileId: crypto.randomUUID(),
    name: 'Rate Filing Memorandum.pdf',
    role: 'supporting_document',
    versionId: null,
    mimeType: 'application/pdf',
    restricted: false,
    content: null,
    text: { pages },
    ...o,
  };
}

/** A file with an original (bytes) and no given text: extraction runs on the original. */
export function aContentFile(content: Buffer, o: Partial<ImportFile> = {}): ImportFile {
  return aTextFile([], { content: { base64: content.toString('base64') }, text: null, name: 'original.txt', mimeType: 'text/plain', ...o });
}

/** A real multi-page PDF, one text block per page (pdfkit's standard fonts cover Latin-1 only). */
export async function pdfOf(pages: string[]): Promise<Buffer> {
  const doc = new PDFDocument({ autoFirstPage: false, compress: true, info: { CreationDate: new Date(0) } });
  const chunks: Buffer[] = [];
  doc.on('data', (c: Buffer) => chunks.push(c));
  const done = new Promise<void>((resolve) => doc.on('end', () => resolve()));
  for (const p of pages) {
    doc.addPage();
    doc.text(p);
  }
  doc.end();
  await done;
  return Buffer.concat(chunks);
}

export interface ImportedFiling {
  filing: CatalogFilingFields;
  files: CatalogFile[];
  version: number;
}

/** Prepares the files through the bound FileIngest and appends CatalogFilingImported (or Updated). */
export async function importFiling(rt: Runtime, filing: CatalogFilingFields, files: ImportFile[], opts: { update?: number } = {}): Promise<ImportedFiling> {
  const ingest = rt.container.get<FileIngest>(TOKENS.FileIngest);
  const prepared: CatalogFile[] = [];
  for (const f of files) prepared.push(await ingest.prepare(f, process.cwd()));
  return appendFiling(rt, filing, prepared, opts);
}

/** Appends already prepared files (large inventories skip the ingest). */
export async function appendFiling(rt: Runtime, filing: CatalogFilingFields, files: CatalogFile[], opts: { update?: number } = {}): Promise<ImportedFiling> {
  const type = opts.update ? 'CatalogFilingUpdated' : 'CatalogFilingImported';
  const r = await rt.store.append(`catalogFiling-${filing.id}`, [{ type, data: { filing, files } }], opts.update ?? 0, { actor: 'test' });
  return { filing, files, version: r.nextVersion };
}

/** A prepared file without content or text, for inventories. */
export function aBareFile(o: Partial<CatalogFile> = {}): CatalogFile {
  return { fileId: crypto.randomUUID(), name: 'exhibit.xlsx', role: 'rate', versionId: null, mimeType: 'application/octet-stream', restricted: false, contentSha256: null, size: null, pageCount: null, text: null, ...o };
}
