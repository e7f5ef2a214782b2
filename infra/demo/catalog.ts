import { Carrier, Directory, ProductPlan } from './directory';
import { DocContext, DocKind, FileRole, kindsForRole, writeDocument } from './documents';
import { DAY_MS, describe, fileName, isoDay } from './filing-texts';
import { Rng, uuidFor } from './prng';
import {
  LINE_LABEL, LINE_TERMS, OUTSIDE_COMPANIES, PRODUCT_TOIS, PRODUCT_TYPE_WEIGHTS, PRODUCT_WORDS, ProductType,
  SERFF_PREFIXES, STATE_NAME, STATE_WEIGHTS, TOI_TABLE,
} from './vocabulary';

/** The data set's "today": fixed, so output never depends on the clock. */
export const END_DATE = '2026-11-15';
export const FIRST_YEAR = 2015;
export const LAST_YEAR = 2026;
const END_MS = Date.parse(`${END_DATE}T00:00:00Z`);

/** More filings in later years; 2026 is cut at END_DATE. */
const YEAR_WEIGHTS: [number, number][] = [];
for (let y = FIRST_YEAR; y <= LAST_YEAR; y++) {
  const days = y === LAST_YEAR ? (END_MS - Date.UTC(y, 0, 1)) / DAY_MS + 1 : 365;
  YEAR_WEIGHTS.push([y, (1 + 0.08 * (y - FIRST_YEAR)) * (days / 365)]);
}
const YEAR_WEIGHT_TOTAL = YEAR_WEIGHTS.reduce((n, [, w]) => n + w, 0);

const SERFF_SHARE = 0.8;

/**
 * SERFF tracking numbers look like one national sequence: about 127M in 2011, 133.7M in 2023,
 * 134.8M at the end of 2026 (reference/filing-facts.md). Numbers are handed out per year from that year's
 * slice of the sequence with a stride sized for the expected count, so they grow with the year and never
 * repeat (unless a year gets 1.5x its expected share plus six standard deviations, which does not happen).
 */
function serffSequenceAt(year: number): number {
  const anchors: [number, number][] = [[2011, 127_000_000], [2023, 133_700_000], [2027, 134_800_000]];
  for (let i = 0; i < anchors.length - 1; i++) {
    const [y0, v0] = anchors[i]!;
    const [y1, v1] = anchors[i + 1]!;
    if (year >= y0 && year <= y1) return Math.round(v0 + ((year - y0) / (y1 - y0)) * (v1 - v0));
  }
  throw new Error(`year ${year} outside the SERFF sequence anchors`);
}

class YearSequence {
  private readonly counters = new Map<number, number>();
  constructor(
    private readonly total: number,
    private readonly share: number,
    private readonly start: (year: number) => number,
    private readonly span: (year: number) => number,
  ) {}

  next(year: number, r: Rng): number {
    const expected = (this.total * this.share * YEAR_WEIGHTS.find(([y]) => y === year)![1]) / YEAR_WEIGHT_TOTAL;
    const capacity = expected * 1.5 + 6 * Math.sqrt(expected) + 10;
    const stride = Math.max(1, Math.floor(this.span(year) / capacity));
    const n = this.counters.get(year) ?? 0;
    this.counters.set(year, n + 1);
    return this.start(year) + n * stride + (stride > 1 ? r.int(0, stride - 1) : 0);
  }
}

export class Sequences {
  readonly serff: YearSequence;
  readonly florida: YearSequence;
  constructor(total: number) {
    this.serff = new YearSequence(total, SERFF_SHARE, serffSequenceAt, (y) => serffSequenceAt(y + 1) - serffSequenceAt(y));
    // Florida file log numbers restart every year: YY-NNNNNN.
    this.florida = new YearSequence(total, 1 - SERFF_SHARE, () => 100, () => 999_000);
  }
}

export interface PdfJob {
  /** Relative to the JSONL file. */
  relPath: string;
  title: string;
  pages: string[];
}

export interface CatalogFile {
  fileId: string;
  name: string;
  role: FileRole;
  versionId: string | null;
  mimeType: string;
  restricted: boolean;
  content: { path: string } | null;
  text: { pages: string[] } | null;
}

export interface CatalogFilingRecord {
  type: 'catalog_filing';
  id: string;
  source: 'serff' | 'florida_irfs';
  sourceReference: string;
  state: string;
  companyName: string;
  naicCompanyCodes: string[] | null;
  naicGroupCode: string | null;
  carrierIds: string[] | null;
  groupId: string | null;
  productName: string;
  typeOfInsurance: string;
  subTypeOfInsurance: string;
  toiCode: string | null;
  subToiCode: string | null;
  filingType: string;
  sourceStatus: string;
  submissionDate: string;
  dispositionDate: string | null;
  businessType: string;
  normalizedOutcome: string;
  filingTypeNormalized: string;
  stateStatusChangedDate: string;
  description: string;
  files: CatalogFile[];
}

export interface FilingResult {
  record: CatalogFilingRecord;
  pdfs: PdfJob[];
  /** The directory product this filing belongs to, if any. */
  product: ProductPlan | null;
}

const FILING_TYPES: [raw: string, normalized: string, weight: number][] = [
  ['Rate', 'RATE', 22], ['Form', 'FORM', 22], ['Rule', 'RULE', 9], ['Rate/Rule', 'RATE_RULE', 19],
  ['Form/Rate', 'FORM_RATE', 12], ['Advertisement', 'ADVERTISING', 4], ['New Program', 'NEW_PROGRAM', 5],
];

const SERFF_CLOSED: [status: string, outcome: string, weight: number][] = [
  ['Closed-Approved', 'APPROVED', 50], ['Closed-Filed', 'FILED', 22], ['Closed-Acknowledged', 'ACKNOWLEDGED', 14],
  ['Closed-Withdrawn', 'WITHDRAWN', 6],
];
const FLORIDA_CLOSED: [status: string, outcome: string, weight: number][] = [
  ['APPROVED', 'APPROVED', 52], ['FILED', 'FILED', 30], ['WITHDRAWN', 'WITHDRAWN', 8], ['DISAPPROVED', 'REJECTED', 4],
  ['OTHER', 'UNKNOWN', 1],
];

function rolesFor(filingType: string): FileRole[] {
  switch (filingType) {
    case 'Rate': return ['rate'];
    case 'Form': return ['form'];
    case 'Rule': return ['rule'];
    case 'Rate/Rule': return ['rate', 'rule'];
    case 'Form/Rate': return ['form', 'rate'];
    case 'Advertisement': return ['other'];
    case 'New Program': return ['form', 'rate', 'rule'];
    default: throw new Error(`unknown filing type ${filingType}`);
  }
}

function toiLabels(source: string, toi: string, sub: string): [string, string] {
  const t = TOI_TABLE[toi]!;
  const s = t.subTois[sub]!;
  return source === 'serff' ? [`${toi} ${t.name}`, `${sub} ${s}`] : [t.name, s];
}

/** Labels seen on filings whose codes were not normalized. */
const RAW_TOI_LABELS: Record<ProductType, [string, string]> = {
  homeowners: ['Homeowners Multi-Peril', 'HO-3 Owner Occupied'],
  personal_auto: ['Private Passenger Auto (PPA)', 'PPA Liability and Physical Damage'],
  cyber: ['Cyber / Data Breach', 'Stand-alone Cyber'],
  commercial_property: ['Commercial Fire & Allied', 'Commercial Property Special Form'],
  workers_comp: ['Workers Comp', 'Standard WC'],
  umbrella: ['Personal Umbrella Liability', 'Umbrella'],
  commercial_auto: ['Comm Auto', 'Business Auto'],
  dwelling_fire: ['Dwelling Fire/Allied', 'DP-3'],
  inland_marine: ['Inland Marine (Commercial)', 'Contractors Equipment'],
  businessowners: ['BOP', 'Businessowners Package'],
};

export interface FilingOptions {
  seed: number;
  total: number;
  pdf: boolean;
  /** Which documents get a PDF original when `pdf` is on (the others carry text pages). */
  pdfFor: (filingIndex: number, fileIndex: number) => boolean;
}

export function makeFiling(i: number, dir: Directory, seq: Sequences, opts: FilingOptions): FilingResult {
  const r = Rng.for(opts.seed, 'filing', i);
  const id = uuidFor(opts.seed, 'filing', i);
  const source: 'serff' | 'florida_irfs' = r.chance(1 - SERFF_SHARE) ? 'florida_irfs' : 'serff';

  // Dates first: a merged carrier cannot file after its merger.
  const year = r.weighted(YEAR_WEIGHTS);
  const yearStart = Date.UTC(year, 0, 1);
  const lastDay = Math.min(Date.UTC(year, 11, 31), END_MS);
  const submitMs = yearStart + r.int(0, Math.round((lastDay - yearStart) / DAY_MS)) * DAY_MS;

  // Who files what: a directory product, a directory carrier with an unlisted program, or a company outside
  // the directory.
  const path = r.weighted([['product', 60], ['carrier', 30], ['outside', 10]] as const);
  let product: ProductPlan | null = null;
  let state: string;
  let productType: ProductType;
  let productName: string;
  let carriers: Carrier[] = [];
  let toi: string;
  let sub: string;
  let outsideCompany: string | null = null;
  const inSource = (state: string): boolean => (source === 'florida_irfs' ? state === 'FL' : state !== 'FL');
  const candidates = path === 'product' ? dir.products.filter((p) => p.availability.some((a) => inSource(a.state))) : [];
  if (candidates.length) {
    product = r.pick(candidates);
    const row = r.pick(product.availability.filter((a) => inSource(a.state)));
    state = row.state;
    productType = product.productType;
    productName = product.name;
    carriers = [r.pick(row.writingCompanies)];
    toi = r.pick(row.toiCodes);
    sub = r.pick(row.subtoiCodes);
  } else {
    productType = r.weighted(PRODUCT_TYPE_WEIGHTS);
    state = source === 'florida_irfs' ? 'FL' : r.weighted(STATE_WEIGHTS);
    const t = r.pick(PRODUCT_TOIS[productType]);
    toi = t.toi;
    sub = r.pick(t.subTois);
    if (path === 'carrier') {
      const c = r.pick(dir.carriersByLine.get(productType)!);
      carriers = [c];
      productName = r.chance(0.5) ? `${c.stem} ${r.pick(PRODUCT_WORDS[productType])}` : `${LINE_LABEL[productType]} ${r.pick(['Program', 'Manual', 'Rates and Rules', 'Policy Forms', 'Package'])}`;
    } else {
      outsideCompany = r.pick(OUTSIDE_COMPANIES);
      productName = `${outsideCompany.split(' ')[0]} ${r.pick(PRODUCT_WORDS[productType])}`;
    }
  }
  // The merged carrier's later filings come from the survivor.
  carriers = carriers.map((c) => (c.lastFilingYear !== null && year > c.lastFilingYear ? dir.carriers.find((s) => s.id === c.mergedInto)! : c));
  // Some filings are made for several companies of a group at once.
  const first = carriers[0];
  if (first?.group && r.chance(0.08)) {
    const mates = dir.carriers.filter((c) => c.group === first.group && c !== first && !c.mergedInto);
    carriers.push(...r.sample(mates, r.int(1, 2)));
  }

  let companyName: string;
  let naicCompanyCodes: string[] | null;
  let carrierIds: string[] | null;
  let naicGroupCode: string | null;
  let groupId: string | null;
  if (outsideCompany) {
    companyName = outsideCompany;
    // Codes outside the directory's range, so they match no carrier.
    naicCompanyCodes = [String(45000 + (OUTSIDE_COMPANIES.indexOf(outsideCompany) * 2731) % 40000)];
    carrierIds = [];
    naicGroupCode = r.chance(0.5) ? String(5000 + OUTSIDE_COMPANIES.indexOf(outsideCompany) * 17) : null;
    groupId = null;
  } else {
    companyName = r.pick(carriers).name;
    naicCompanyCodes = carriers.map((c) => c.code);
    carrierIds = carriers.map((c) => c.id);
    naicGroupCode = first!.group?.code ?? null;
    groupId = first!.group?.id ?? null;
  }
  // Sources without company codes (more common on the Florida side).
  if (r.chance(source === 'florida_irfs' ? 0.12 : 0.02)) {
    naicCompanyCodes = null;
    carrierIds = null;
    naicGroupCode = null;
    groupId = null;
  }

  let [typeOfInsurance, subTypeOfInsurance] = toiLabels(source, toi, sub);
  let toiCode: string | null = toi;
  let subToiCode: string | null = sub;
  if (r.chance(0.03)) {
    [typeOfInsurance, subTypeOfInsurance] = RAW_TOI_LABELS[productType];
    toiCode = null;
    subToiCode = null;
  }

  const [filingType, filingTypeNormalized] = r.weighted(FILING_TYPES.map(([raw, norm, w]) => [[raw, norm] as const, w] as const));

  // Disposition 10 to 120 days after submission; recent filings are often still pending, a few old ones too.
  const submissionDate = isoDay(submitMs);
  const dispositionMs = submitMs + r.int(10, 120) * DAY_MS;
  const pending = dispositionMs > END_MS || r.chance(0.015);
  let sourceStatus: string;
  let normalizedOutcome: string;
  let dispositionDate: string | null;
  let stateStatusChangedDate: string;
  if (pending) {
    sourceStatus = source === 'serff' ? 'Pending State Action' : 'PENDING';
    normalizedOutcome = 'PENDING';
    dispositionDate = null;
    stateStatusChangedDate = isoDay(Math.min(submitMs + r.int(0, 30) * DAY_MS, END_MS));
  } else {
    const table = source === 'serff' ? SERFF_CLOSED : FLORIDA_CLOSED;
    let pick = r.weighted(table.map((row) => [row, row[2]] as const));
    // Advertising is acknowledged or filed, not approved.
    if (filingType === 'Advertisement' && pick[1] === 'APPROVED') pick = table.find((row) => row[1] === (source === 'serff' ? 'ACKNOWLEDGED' : 'FILED'))!;
    [sourceStatus, normalizedOutcome] = pick;
    dispositionDate = isoDay(dispositionMs);
    stateStatusChangedDate = isoDay(Math.min(dispositionMs + r.int(0, 3) * DAY_MS, END_MS));
  }

  let sourceReference: string;
  let referenceLabel: string;
  if (source === 'serff') {
    sourceReference = `${r.pick(SERFF_PREFIXES)}-${seq.serff.next(year, r)}`;
    referenceLabel = 'SERFF Tr Num';
  } else {
    sourceReference = `${String(year % 100).padStart(2, '0')}-${String(seq.florida.next(year, r)).padStart(6, '0')}`;
    referenceLabel = 'File Log Number';
  }

  const terms = product ? r.sample(product.features, 2) : r.sample(LINE_TERMS[productType], 2);
  if (r.chance(0.3)) terms.push(r.pick(LINE_TERMS[productType]));
  const indicatedChange = Math.round(r.float(-6, 24) * 10) / 10;
  const selectedChange = Math.round(Math.min(indicatedChange, indicatedChange * r.float(0.4, 1)) * 10) / 10;
  const effectiveDate = isoDay(submitMs + r.int(45, 150) * DAY_MS);
  const formPrefix = `${(companyName.match(/[A-Z]/g) ?? ['X']).slice(0, 2).join('')}-${productType === 'personal_auto' ? 'PA' : productType === 'homeowners' ? 'HO' : productType.slice(0, 2).toUpperCase()}`;
  const ctx: DocContext = {
    companyName, productName, productType, state, stateName: STATE_NAME[state]!,
    toiLabel: typeOfInsurance, subToiLabel: subTypeOfInsurance, reference: sourceReference, referenceLabel,
    filingType, submissionDate, effectiveDate, terms, indicatedChange, selectedChange, formPrefix,
  };

  const description = describe(r, ctx, filingType);

  // Files: the documents the filing type calls for, then supporting material and correspondence.
  const roles: { role: FileRole; kind: DocKind }[] = [];
  for (const role of rolesFor(filingType)) {
    const kinds = kindsForRole(role);
    roles.push({ role, kind: kinds[0]! });
    if (kinds.length > 1 && (role === 'rate' || role === 'form') && r.chance(0.3)) roles.push({ role, kind: kinds[1]! });
  }
  if (r.chance(0.5)) roles.push({ role: 'supporting_document', kind: r.chance(0.6) ? 'explanatory_memorandum' : 'cover_letter' });
  if (r.chance(0.3)) {
    roles.push({ role: 'correspondence', kind: 'objection_letter' });
    if (!pending) roles.push({ role: 'correspondence', kind: 'objection_response' });
  }
  if (r.chance(0.12)) roles.push({ role: 'other', kind: 'certification' });
  const fileSpecs = roles.slice(0, 6);

  const files: CatalogFile[] = [];
  const pdfs: PdfJob[] = [];
  const usedNames = new Set<string>();
  fileSpecs.forEach(({ role, kind }, k) => {
    const fileId = uuidFor(opts.seed, 'file', i, k);
    let name = fileName(r, ctx, kind);
    if (usedNames.has(name)) name = name.replace(/\.pdf$/, ` (${k + 1}).pdf`);
    usedNames.add(name);
    // Letters and certifications are short; memoranda, forms and manuals run longer.
    const pageCount = kind === 'cover_letter' || kind === 'certification' || kind === 'objection_letter' || kind === 'objection_response'
      ? r.int(2, 3)
      : r.weighted([[2, 3], [3, 5], [4, 5], [5, 4], [6, 3], [7, 2], [8, 2]] as const);
    const pages = writeDocument(r, ctx, kind, name.replace(/\.pdf$/, ''), pageCount);
    const versionId = r.chance(0.7) ? String(r.weighted([[1, 6], [2, 3], [3, 1]] as const)) : null;
    const restricted = r.chance(0.02);
    const asPdf = opts.pdf && opts.pdfFor(i, k);
    if (asPdf) pdfs.push({ relPath: `files/${fileId}.pdf`, title: name, pages });
    files.push({
      fileId, name, role, versionId, mimeType: 'application/pdf', restricted,
      content: asPdf ? { path: `files/${fileId}.pdf` } : null,
      text: asPdf ? null : { pages },
    });
  });

  const record: CatalogFilingRecord = {
    type: 'catalog_filing', id, source, sourceReference, state, companyName, naicCompanyCodes, naicGroupCode,
    carrierIds, groupId, productName, typeOfInsurance, subTypeOfInsurance, toiCode, subToiCode, filingType,
    sourceStatus, submissionDate, dispositionDate, businessType: r.chance(0.96) ? 'Property & Casualty' : 'Property',
    normalizedOutcome, filingTypeNormalized, stateStatusChangedDate, description, files,
  };
  return { record, pdfs, product };
}
