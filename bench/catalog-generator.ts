
import fs from 'node:fs';

const STATES = ['TX', 'FL', 'CA', 'NY', 'GA', 'IL', 'OH', 'PA', 'NC', 'MI', 'NJ', 'VA', 'WA', 'AZ', 'MA', 'TN', 'IN', 'MO', 'MD', 'WI'];
const TOIS: [string, string][] = [['04.0', '04.0003'], ['19.0', '19.0001'], ['17.0', '17.0021'], ['01.0', '01.0001'], ['20.0', '20.0000'], ['16.0', '16.0001']];
const OUTCOMES = ['APPROVED', 'FILED', 'ACKNOWLEDGED', 'WITHDRAWN', 'PENDING', 'REJECTED'];
const TYPES = ['RATE', 'FORM', 'RULE', 'RATE_RULE', 'FORM_RATE'];
const WORDS = 'policy coverage premium insured deductible endorsement liability exclusion territory rating schedule commission dwelling vehicle'.split(' ');

/** A deterministic pseudo-random sequence, so generated data sets are reproducible. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

function uuidFrom(r: () => number): string {
  const b = Buffer.alloc(16);
  for (let i = 0; i < 16; i++) b[i] = Math.floor(r() * 256);
  b[6] = (b[6] & 0x0f) | 0x40;
  b[8] = (b[8] & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** One realistic catalog_filing record with one file of `pages` text pages (0: the file has no text). */
export function generatedFiling(i: number, r: () => number, pages = 3): Record<string, unknown> {
  const serff = r() < 0.6;
  const [toi, sub] = TOIS[Math.floor(r() * TOIS.length)];
  const code = String(10000 + Math.floor(r() * 2000));
  const day = (from: number) => new Date(Date.UTC(2018, 0, 1) + Math.floor(from + r() * 2900) * 86400_000).toISOString().slice(0, 10);
  const text = () => Array.from({ length: 120 }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');
  return {
    type: 'catalog_filing',
    id: uuidFrom(r),
    source: serff ? 'serff' : 'florida_irfs',
    sourceReference: serff ? `ABCD-${130000000 + i}` : `${18 + (i % 8)}-${String(i).padStart(6, '0')}`,
    state: serff ? STATES[Math.floor(r() * STATES.length)] : 'FL',
    companyName: `Company ${code} Insurance`,
    naicCompanyCodes: r() < 0.05 ? null : [code],
    naicGroupCode: String(100 + (Number(code) % 300)),
    carrierIds: [`carrier_${code}`],
    groupId: `carrier_group_${100 + (Number(code) % 300)}`,
    productName: `Product ${Math.floor(r() * 500)}`,
    typeOfInsurance: 'Type',
    subTypeOfInsurance: 'Sub type',
    toiCode: r() < 0.05 ? null : toi,
    subToiCode: r() < 0.1 ? null : sub,
    filingType: 'Rate',
    sourceStatus: 'Closed-Approved',
    submissionDate: r() < 0.02 ? null : day(0),
    dispositionDate: r() < 0.2 ? null : day(30),
    businessType: 'Property',
    normalizedOutcome: OUTCOMES[Math.floor(r() * OUTCOMES.length)],
    filingTypeNormalized: TYPES[Math.floor(r() * TYPES.length)],
    stateStatusChangedDate: r() < 0.3 ? null : day(30),
    description: `Generated filing ${i}`,
    files: [
      { fileId: uuidFrom(r), name: `filing-${i}.pdf`, role: 'form', versionId: null, mimeType: 'application/pdf', restricted: false, content: null, text: pages > 0 ? { pages: Array.from({ length: pages }, text) } : null },
    ],
  };
}

/** `n` generated filings, lazily, in the same deterministic order as the JSON Lines file. */
export function* generatedFilings(n: number, opts: { seed?: number; pages?: number } = {}): Generator<Record<string, unknown>> {
  const r = rng(opts.seed ?? 42);
  for (let i = 0; i < n; i++) yield generatedFiling(i, r, opts.pages ?? 3);
}

/** Writes `n` generated filings as JSON Lines (streamed, so large sets need no memory). */
export async function writeGeneratedCatalog(file: string, n: number, opts: { seed?: number; pages?: number } = {}): Promise<void> {
  const out = fs.createWriteStream(file);
  for (const filing of generatedFilings(n, opts)) {
    if (!out.write(JSON.stringify(filing) + '\n')) await new Promise<void>((res) => out.once('drain', () => res()));
  }
  await new Promise<void>((res, rej) => out.end((e?: Error | null) => (e ? rej(e) : res())));
}
