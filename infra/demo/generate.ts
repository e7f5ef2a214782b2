import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { CatalogFilingRecord, PdfJob, Sequences, makeFiling } from './catalog';
import { Directory, ProductPlan, buildDirectory } from './directory';
import { renderPdf } from './pdf';
import { Rng, uuidFor } from './prng';
import { LINE_LABEL, PRODUCT_TOIS, SERFF_PREFIXES, STATES, STATE_NAME, TOI_TABLE } from './vocabulary';

export { TOI_TABLE } from './vocabulary';

export interface DemoOptions {
  /** Number of catalog filings, default 2000. */
  filings: number;
  /** Default 20261122; the same seed and options give byte-identical output. */
  seed?: number;
  /** Receives demo.jsonl and files/<fileId>.pdf. */
  outDir: string;
  /**
   * true (default): documents get a real PDF original under outDir/files, referenced as
   * {"content": {"path": "files/<fileId>.pdf"}} with "text": null, for the importer to extract.
   * See PDF_FILINGS for which documents get one. false: no PDFs, every file carries {"text": {"pages": [...]}}.
   */
  pdf?: boolean;
  /** "mc:<uuid>": also emit scope_company / scope_jurisdiction / scope_product / managed_filing records. */
  scope?: string;
  onProgress?: (done: number, total: number) => void;
}

export type DemoRecordOptions = Omit<DemoOptions, 'outDir' | 'onProgress' | 'filings'> & { filings?: number };

export interface DemoResult {
  /** Lines written to demo.jsonl. */
  records: number;
  /** Catalog file entries (documents) across all filings. */
  files: number;
  /** Of those, how many have a PDF original under outDir/files. */
  pdfFiles: number;
  jsonlPath: string;
}

export const DEFAULT_SEED = 20261122;
export const DEFAULT_FILINGS = 2000;

/**
 * Which documents get a real PDF when `pdf` is on: every document of the first PDF_FILINGS filings, and the
 * first document of every other filing. Rendering every page of a 2,000-filing set with pdfkit takes minutes
 * on two cores; this keeps the default demo well under a minute while every filing still has a PDF original
 * to download and extract. The rest carry their text as pages.
 */
export const PDF_FILINGS = 300;
function pdfFor(filingIndex: number, fileIndex: number): boolean {
  return filingIndex < PDF_FILINGS || fileIndex === 0;
}

interface Entry {
  record: object;
  pdfs: PdfJob[];
  /** Set on catalog filings, for progress. */
  filing?: true;
}

/** Products cite at most this many filings, which keeps memory flat for any size. */
const MAX_PRODUCT_FILINGS = 6;

function* demoEntries(opts: DemoRecordOptions): Generator<Entry> {
  const seed = opts.seed ?? DEFAULT_SEED;
  const total = opts.filings ?? DEFAULT_FILINGS;
  const pdf = opts.pdf ?? true;
  if (!Number.isInteger(total) || total < 0) throw new Error(`filings must be a non-negative integer, got ${total}`);
  if (opts.scope !== undefined && !/^mc:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(opts.scope)) {
    throw new Error(`scope must be "mc:<lowercase uuid>", got ${opts.scope}`);
  }
  const dir = buildDirectory(seed);
  yield* directoryEntries(dir);

  const seq = new Sequences(total);
  const cited = new Map<ProductPlan, { state: string; filingId: string }[]>();
  for (let i = 0; i < total; i++) {
    const { record, pdfs, product } = makeFiling(i, dir, seq, { seed, total, pdf, pdfFor });
    if (product) {
      const list = cited.get(product) ?? [];
      if (list.length < MAX_PRODUCT_FILINGS) list.push({ state: record.state, filingId: record.id });
      cited.set(product, list);
    }
    yield { record, pdfs, filing: true };
  }

  // Products come after the catalog filings they cite.
  for (const p of dir.products) yield { record: productRecord(p, cited.get(p) ?? []), pdfs: [] };

  if (opts.scope) yield* scopeEntries(seed, opts.scope, dir);
}

/** Every import record of the data set, in file order, without writing anything. */
export function* demoRecords(opts: DemoRecordOptions): Generator<object> {
  for (const e of demoEntries(opts)) yield e.record;
}

function* directoryEntries(dir: Directory): Generator<Entry> {
  for (const g of dir.groups) {
    yield { record: { type: 'carrier_group', id: g.id, name: g.name, identifiers: [{ scheme: 'naic_group', value: g.registeredCode }] }, pdfs: [] };
  }
  for (const c of dir.carriers) {
    yield {
      record: {
        type: 'carrier', id: c.id, name: c.name, identifiers: [{ scheme: 'naic_company', value: c.code }],
        groupId: c.group?.id ?? null, domicile: c.domicile, status: c.status, aliases: c.aliases,
        grossPremiumWritten: c.grossPremiumWritten, cessionRatio: c.cessionRatio, mergedInto: c.mergedInto,
      },
      pdfs: [],
    };
  }
  for (const m of dir.mgas) {
    yield { record: { type: 'mga', id: m.id, slug: m.slug, name: m.name, aliases: m.aliases, carriers: m.carriers }, pdfs: [] };
  }
}

function productRecord(p: ProductPlan, filings: { state: string; filingId: string }[]): object {
  const claims: { text: string; citations: object[] }[] = [];
  if (p.index % 3 !== 2) {
    const feature = p.features[0]!;
    const states = p.availability.map((a) => STATE_NAME[a.state]).join(', ');
    claims.push({
      text: filings.length
        ? `${p.name} includes ${feature} provisions in its filed ${LINE_LABEL[p.productType].toLowerCase()} program (${STATE_NAME[filings[0]!.state]}).`
        : `${p.name} is configured for ${states}.`,
      citations: filings.length
        ? filings.slice(0, 2).map((f) => ({ kind: 'filing', filingId: f.filingId }))
        : [{ kind: 'unavailable', reason: 'internal_source' }],
    });
    claims.push({
      text: `Compared with peer ${LINE_LABEL[p.productType].toLowerCase()} programs, ${p.name} offers broader ${p.features[1]} terms (carrier marketing material; not verified against filings).`,
      citations: [{ kind: 'unavailable', reason: 'internal_source' }],
    });
  }
  return {
    type: 'product', id: p.id, name: p.name, productType: p.productType, admitted: p.admitted,
    predecessorProductId: p.predecessorProductId, note: p.note, groupId: p.group?.id ?? null, mgaId: p.mga?.id ?? null,
    availability: p.availability.map((a) => ({
      state: a.state, writingCompanyIds: a.writingCompanies.map((c) => c.id), toiCodes: a.toiCodes, subtoiCodes: a.subtoiCodes, note: a.note,
    })),
    claims,
    filings,
  };
}

const MANAGED_FILING_TYPES = ['form', 'rate', 'rule', 'form_rate', 'form_rule', 'rate_rule', 'form_rate_rule', 'adoption', 'withdrawal'] as const;
const REVIEW_TYPES = ['prior_approval', 'file_and_use', 'use_and_file', 'informational', null] as const;

function* scopeEntries(seed: number, scope: string, dir: Directory): Generator<Entry> {
  const r = Rng.for(seed, 'scope', scope);
  const id = (kind: string, n: number): string => uuidFor(seed, scope, kind, n);

  const companies = r.sample(dir.carriers.filter((c) => !c.mergedInto), 6).map((c, n) => ({
    type: 'scope_company', scope, id: id('company', n), name: c.name, naicCompanyCode: n < 4 ? c.code : null,
  }));
  const jurisdictions = r.sample(STATES.filter(([code]) => ['TX', 'FL', 'CA', 'NY', 'IL', 'GA', 'OH', 'AZ', 'CO', 'LA'].includes(code)), 8)
    .map(([code, name], n) => ({ type: 'scope_jurisdiction', scope, id: id('jurisdiction', n), code, name }));
  const products = r.sample(dir.products, 6).map((p, n) => ({ type: 'scope_product', scope, id: id('product', n), name: p.name, productType: p.productType }));
  for (const rec of [...companies, ...jurisdictions]) yield { record: rec, pdfs: [] };
  for (const { productType: _unused, ...rec } of products) yield { record: rec, pdfs: [] };

  for (let n = 0; n < 4; n++) {
    const company = r.pick(companies);
    const jurisdiction = r.pick(jurisdictions);
    const product = r.pick(products);
    const filingType = r.pick(MANAGED_FILING_TYPES);
    const t = r.pick(PRODUCT_TOIS[product.productType]);
    const subToiCode = r.pick(t.subTois);
    if (!(subToiCode in TOI_TABLE[t.toi]!.subTois)) throw new Error(`bad sub-TOI ${subToiCode}`);
    const year = r.int(2022, 2026);
    const submitted = Date.UTC(year, r.int(0, 9), r.int(1, 28));
    const decided = n !== 3;
    const day = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
    yield {
      record: {
        type: 'managed_filing', scope, id: id('managed_filing', n), filingMode: n % 2 === 0 ? 'reference' : null,
        companyId: company.id, jurisdictionId: jurisdiction.id, primaryProductId: product.id, filingType,
        description: `${filingType.replace(/_/g, '/')} filing for ${product.name} in ${jurisdiction.name} (${company.name}), imported from the ${year} filing log.`,
        serffTrackingNumber: `${r.pick(SERFF_PREFIXES)}-${134_000_000 + r.int(0, 799_999)}`,
        stateTrackingNumber: jurisdiction.code === 'FL' ? `${String(year % 100)}-${String(r.int(1000, 99999)).padStart(6, '0')}` : `${jurisdiction.code}-${year}-${r.int(100, 9999)}`,
        companyTrackingNumber: `${company.name.replace(/[^A-Z]/g, '').slice(0, 3)}-${year}-${String(r.int(1, 250)).padStart(3, '0')}`,
        reviewType: r.pick(REVIEW_TYPES),
        toiCode: t.toi,
        subToiCode,
        disposition: decided ? r.pick(['approved', 'filed', 'acknowledged', 'deemed_approved'] as const) : 'pending',
        dispositionDate: decided ? day(submitted + r.int(20, 90) * 86400000) : null,
        effectiveFromNew: day(submitted + r.int(60, 150) * 86400000),
        effectiveFromRenewal: day(submitted + r.int(90, 180) * 86400000),
      },
      pdfs: [],
    };
  }
}

/**
 * Writes outDir/demo.jsonl (and PDF originals under outDir/files), streaming: memory stays flat whatever
 * the number of filings. Existing files of the same names are overwritten; nothing else is removed.
 */
export async function generateDemo(opts: DemoOptions): Promise<DemoResult> {
  const total = opts.filings ?? DEFAULT_FILINGS;
  const jsonlPath = join(opts.outDir, 'demo.jsonl');
  await mkdir(opts.outDir, { recursive: true });
  if (opts.pdf ?? true) await mkdir(join(opts.outDir, 'files'), { recursive: true });

  const out = createWriteStream(jsonlPath);
  const failed = new Promise<never>((_, reject) => out.once('error', reject));
  failed.catch(() => undefined);
  let buffer = '';
  let records = 0;
  let files = 0;
  let pdfFiles = 0;
  let done = 0;
  const step = Math.max(1, Math.floor(total / 200));
  const flush = async (): Promise<void> => {
    if (!out.write(buffer)) await Promise.race([once(out, 'drain'), failed]);
    buffer = '';
  };
  for (const entry of demoEntries({ ...opts, filings: total })) {
    for (const job of entry.pdfs) {
      await writeFile(join(opts.outDir, job.relPath), await renderPdf(job.title, job.pages));
      pdfFiles++;
    }
    buffer += JSON.stringify(entry.record) + '\n';
    records++;
    if (entry.filing) {
      files += (entry.record as CatalogFilingRecord).files.length;
      done++;
      if (done % step === 0 || done === total) opts.onProgress?.(done, total);
    }
    if (buffer.length >= 1 << 20) await flush();
  }
  if (buffer) await flush();
  out.end();
  await Promise.race([finished(out), failed]);
  return { records, files, pdfFiles, jsonlPath };
}
