import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractText, getDocumentProxy } from 'unpdf';
import { DemoResult, TOI_TABLE, demoRecords, generateDemo } from '../../../infra/demo/generate';

// Records are checked as loose JSON: the point is what the import file contains.
type Rec = Record<string, any>;

const SCOPE = 'mc:3f2b8c1e-5d4a-4e6f-9a7b-0c1d2e3f4a5b';
const FILINGS = 30;

async function run(dir: string, pdf: boolean, seed?: number): Promise<{ result: DemoResult; jsonl: string; filesHash: string }> {
  const result = await generateDemo({ filings: FILINGS, outDir: dir, pdf, scope: SCOPE, seed });
  const jsonl = await readFile(result.jsonlPath, 'utf8');
  const h = createHash('sha256');
  if (pdf) {
    for (const name of (await readdir(join(dir, 'files'))).sort()) h.update(name).update(await readFile(join(dir, 'files', name)));
  }
  return { result, jsonl, filesHash: h.digest('hex') };
}

function parse(jsonl: string): Rec[] {
  return jsonl.trimEnd().split('\n').map((line) => JSON.parse(line) as Rec);
}

// pdfkit may wrap a line after a hyphen ("five-" / "year"), which extraction gives back as "five- year".
const normalize = (s: string): string => s.replace(/\s+/g, ' ').replace(/- /g, '-').trim();

describe('demo data generator', function () {
  this.timeout(60_000);
  let root: string;
  let withPdf: Awaited<ReturnType<typeof run>>;
  let textOnly: Awaited<ReturnType<typeof run>>;
  let records: Rec[];

  before(async () => {
    root = await mkdtemp(join(tmpdir(), 'ifrs-demo-test-'));
    withPdf = await run(join(root, 'pdf-a'), true);
    textOnly = await run(join(root, 'text-a'), false);
    records = parse(withPdf.jsonl);
  });
  after(async () => {
    await rm(root, { recursive: true, force: true });
  });

  describe('determinism', () => {
    it('gives byte-identical JSONL and PDFs for the same seed (pdf: true)', async () => {
      const again = await run(join(root, 'pdf-b'), true);
      assert.equal(again.jsonl, withPdf.jsonl);
      assert.equal(again.filesHash, withPdf.filesHash);
      assert.ok(withPdf.result.pdfFiles > 0);
    });

    it('gives byte-identical JSONL for the same seed (pdf: false)', async () => {
      const again = await run(join(root, 'text-b'), false);
      assert.equal(again.jsonl, textOnly.jsonl);
    });

    it('gives different data for a different seed', async () => {
      const other = await run(join(root, 'text-c'), false, 7);
      assert.notEqual(other.jsonl, textOnly.jsonl);
    });

    it('streams the same records through demoRecords as it writes', () => {
      const lines = [...demoRecords({ filings: FILINGS, pdf: false, scope: SCOPE })].map((r) => JSON.stringify(r));
      assert.equal(lines.join('\n') + '\n', textOnly.jsonl);
    });

    it('produces records lazily, so a million-filing set starts at once', () => {
      const it = demoRecords({ filings: 1_000_000, pdf: false });
      let n = 0;
      for (const rec of it) {
        if ((rec as Rec).type === 'catalog_filing' && ++n === 5) break;
      }
      assert.equal(n, 5);
    });
  });

  describe('record shapes', () => {
    it('writes one JSON object per line with `type` as its first key', () => {
      for (const line of withPdf.jsonl.trimEnd().split('\n')) {
        const rec = JSON.parse(line) as Rec;
        assert.equal(Object.keys(rec)[0], 'type', line.slice(0, 80));
      }
      assert.equal(records.length, withPdf.result.records);
    });

    it('has every record kind, the expected counts and directory records before the filings', () => {
      const count = (t: string): number => records.filter((r) => r.type === t).length;
      assert.equal(count('catalog_filing'), FILINGS);
      assert.equal(count('carrier_group'), 12);
      assert.equal(count('carrier'), 60);
      assert.equal(count('mga'), 8);
      assert.equal(count('product'), 40);
      assert.equal(count('scope_company'), 6);
      assert.equal(count('scope_jurisdiction'), 8);
      assert.equal(count('scope_product'), 6);
      assert.equal(count('managed_filing'), 4);
      const firstFiling = records.findIndex((r) => r.type === 'catalog_filing');
      const lastDirectory = Math.max(...['carrier_group', 'carrier', 'mga'].map((t) => records.map((r) => r.type).lastIndexOf(t)));
      const firstProduct = records.findIndex((r) => r.type === 'product');
      assert.ok(lastDirectory < firstFiling && firstFiling < firstProduct);
    });

    it('omits scope records without a scope', () => {
      const types = new Set([...demoRecords({ filings: 3, pdf: false })].map((r) => (r as Rec).type));
      for (const t of ['scope_company', 'scope_jurisdiction', 'scope_product', 'managed_filing']) assert.ok(!types.has(t));
    });

    it('gives catalog filings every spec field, in the spec order', () => {
      const keys = ['type', 'id', 'source', 'sourceReference', 'state', 'companyName', 'naicCompanyCodes', 'naicGroupCode',
        'carrierIds', 'groupId', 'productName', 'typeOfInsurance', 'subTypeOfInsurance', 'toiCode', 'subToiCode', 'filingType',
        'sourceStatus', 'submissionDate', 'dispositionDate', 'businessType', 'normalizedOutcome', 'filingTypeNormalized',
        'stateStatusChangedDate', 'description', 'files'];
      for (const f of records.filter((r) => r.type === 'catalog_filing')) assert.deepEqual(Object.keys(f), keys);
    });

    it('uses SERFF tracking numbers and Florida file log numbers of the real formats', () => {
      const filings = [...demoRecords({ filings: 600, pdf: false })].map((r) => r as Rec).filter((r) => r.type === 'catalog_filing');
      const refs = new Set<string>();
      for (const f of filings) {
        if (f.source === 'serff') {
          assert.match(f.sourceReference, /^[A-Z]{4}-\d{9}$/);
          const n = Number(f.sourceReference.slice(5));
          assert.ok(n >= 127_000_000 && n <= 134_800_000, f.sourceReference);
          assert.notEqual(f.state, 'FL');
        } else {
          assert.equal(f.source, 'florida_irfs');
          assert.match(f.sourceReference, /^\d{2}-\d{6}$/);
          assert.equal(f.sourceReference.slice(0, 2), f.submissionDate.slice(2, 4));
          assert.equal(f.state, 'FL');
        }
        const key = `${f.source}:${f.sourceReference.toUpperCase()}`;
        assert.ok(!refs.has(key), `duplicate ${key}`);
        refs.add(key);
      }
      const share = filings.filter((f) => f.source === 'serff').length / filings.length;
      assert.ok(share > 0.7 && share < 0.9, `serff share ${share}`);
      // Numbers grow with the year.
      const avg = (y: number): number => {
        const ns = filings.filter((f) => f.source === 'serff' && f.submissionDate.startsWith(String(y))).map((f) => Number(f.sourceReference.slice(5)));
        return ns.reduce((a, b) => a + b, 0) / ns.length;
      };
      assert.ok(avg(2016) < avg(2020) && avg(2020) < avg(2025));
    });

    it('keeps codes, dates, statuses and outcomes consistent', () => {
      const filings = [...demoRecords({ filings: 600, pdf: false })].map((r) => r as Rec).filter((r) => r.type === 'catalog_filing');
      const outcomes = new Set<string>();
      for (const f of filings) {
        assert.match(f.submissionDate, /^20(1[5-9]|2[0-6])-\d{2}-\d{2}$/);
        if (f.naicCompanyCodes === null) assert.equal(f.carrierIds, null);
        else for (const c of f.naicCompanyCodes) assert.match(c, /^\d{5}$/);
        if (f.naicGroupCode !== null) assert.match(f.naicGroupCode, /^[1-9]\d{0,3}$/);
        if (f.dispositionDate === null) {
          assert.equal(f.normalizedOutcome, 'PENDING');
          assert.ok(['Pending State Action', 'PENDING'].includes(f.sourceStatus));
        } else {
          const days = (Date.parse(f.dispositionDate) - Date.parse(f.submissionDate)) / 86400000;
          assert.ok(days >= 10 && days <= 120, `${days} days`);
        }
        const expected: Record<string, string> = {
          'Closed-Approved': 'APPROVED', 'Closed-Filed': 'FILED', 'Closed-Acknowledged': 'ACKNOWLEDGED', 'Closed-Withdrawn': 'WITHDRAWN',
          'Pending State Action': 'PENDING', APPROVED: 'APPROVED', FILED: 'FILED', WITHDRAWN: 'WITHDRAWN', DISAPPROVED: 'REJECTED', PENDING: 'PENDING', OTHER: 'UNKNOWN',
        };
        assert.equal(f.normalizedOutcome, expected[f.sourceStatus], f.sourceStatus);
        const types: Record<string, string> = {
          Rate: 'RATE', Rule: 'RULE', Form: 'FORM', 'Rate/Rule': 'RATE_RULE', 'Form/Rate': 'FORM_RATE', Advertisement: 'ADVERTISING', 'New Program': 'NEW_PROGRAM',
        };
        assert.equal(f.filingTypeNormalized, types[f.filingType]);
        outcomes.add(f.normalizedOutcome);
        assert.ok(f.files.length >= 1 && f.files.length <= 6);
      }
      for (const o of ['APPROVED', 'FILED', 'ACKNOWLEDGED', 'WITHDRAWN', 'PENDING', 'REJECTED']) assert.ok(outcomes.has(o), o);
      // The mix the brief asks for shows up in a few hundred filings.
      assert.ok(filings.some((f) => f.naicCompanyCodes === null && f.carrierIds === null));
      assert.ok(filings.some((f) => f.naicCompanyCodes !== null && f.carrierIds?.length === 0));
      assert.ok(filings.some((f) => f.toiCode === null && f.subToiCode === null));
      assert.ok(filings.some((f) => (f.carrierIds?.length ?? 0) > 1));
      assert.ok(filings.some((f) => f.files.some((x: Rec) => x.restricted)));
    });

    it('uses only TOI / sub-TOI pairs of the spec table', () => {
      assert.equal(Object.keys(TOI_TABLE).length, 37);
      assert.equal(Object.keys(TOI_TABLE['17.0']!.subTois).length, 30);
      assert.ok('21.0004' in TOI_TABLE['21.4']!.subTois);
      assert.equal(TOI_TABLE['04.0']!.subTois['04.0003'], 'Owner Occupied Homeowners');
      const all = [...demoRecords({ filings: 300, pdf: false, scope: SCOPE })].map((r) => r as Rec);
      for (const f of all.filter((r) => r.type === 'catalog_filing' || r.type === 'managed_filing')) {
        if (f.toiCode === null) {
          assert.equal(f.subToiCode, null);
          continue;
        }
        assert.ok(f.toiCode in TOI_TABLE, f.toiCode);
        assert.ok(f.subToiCode in TOI_TABLE[f.toiCode]!.subTois, `${f.subToiCode} under ${f.toiCode}`);
      }
      for (const p of all.filter((r) => r.type === 'product')) {
        for (const a of p.availability) {
          for (const s of a.subtoiCodes) assert.ok(a.toiCodes.some((t: string) => s in TOI_TABLE[t]!.subTois), s);
        }
      }
    });

    it('resolves every carrier, group, MGA, product, filing and scope reference', () => {
      const ids = new Map<string, Set<string>>();
      for (const r of records) {
        if (!ids.has(r.type)) ids.set(r.type, new Set());
        ids.get(r.type)!.add(r.id);
      }
      const has = (type: string, id: string | null): void => {
        if (id !== null) assert.ok(ids.get(type)?.has(id), `${type} ${id} is not generated`);
      };
      for (const r of records) {
        switch (r.type) {
          case 'carrier_group':
            assert.match(r.identifiers[0].value, /^\d{4}$/);
            assert.equal(r.id, `carrier_group_${Number(r.identifiers[0].value)}`);
            break;
          case 'carrier':
            assert.equal(r.id, `carrier_${r.identifiers[0].value}`);
            has('carrier_group', r.groupId);
            has('carrier', r.mergedInto);
            break;
          case 'mga':
            assert.equal(r.id, `mga_${r.slug}`);
            for (const c of r.carriers) has('carrier', c.carrierId);
            break;
          case 'catalog_filing':
            for (const c of r.carrierIds ?? []) has('carrier', c);
            has('carrier_group', r.groupId);
            break;
          case 'product':
            has('carrier_group', r.groupId);
            has('mga', r.mgaId);
            has('product', r.predecessorProductId);
            for (const a of r.availability) for (const c of a.writingCompanyIds) has('carrier', c);
            for (const f of r.filings) has('catalog_filing', f.filingId);
            for (const claim of r.claims) for (const c of claim.citations) if (c.kind === 'filing') has('catalog_filing', c.filingId);
            break;
          case 'managed_filing':
            assert.equal(r.scope, SCOPE);
            has('scope_company', r.companyId);
            has('scope_jurisdiction', r.jurisdictionId);
            has('scope_product', r.primaryProductId);
            break;
          default:
            break;
        }
      }
      const carriers = records.filter((r) => r.type === 'carrier');
      assert.ok(carriers.some((c) => c.mergedInto !== null));
      assert.ok(carriers.some((c) => c.groupId === null));
      assert.ok(records.some((r) => r.type === 'carrier_group' && r.identifiers[0].value.startsWith('0')));
      const products = records.filter((r) => r.type === 'product');
      assert.ok(products.some((p) => p.filings.length > 0));
      assert.ok(products.some((p) => p.claims.some((c: Rec) => c.citations.some((x: Rec) => x.kind === 'filing'))));
      assert.ok(products.some((p) => p.claims.some((c: Rec) => c.citations.some((x: Rec) => x.kind === 'unavailable' && x.reason === 'internal_source'))));
    });

    it('references a PDF original without text when pdf is on, and text pages without content when off', () => {
      const pdfFiles = records.filter((r) => r.type === 'catalog_filing').flatMap((f) => f.files as Rec[]);
      assert.equal(pdfFiles.length, withPdf.result.files);
      for (const f of pdfFiles) {
        assert.deepEqual(Object.keys(f), ['fileId', 'name', 'role', 'versionId', 'mimeType', 'restricted', 'content', 'text']);
        if (f.content) {
          assert.equal(f.content.path, `files/${f.fileId}.pdf`);
          assert.equal(f.text, null);
        } else {
          assert.ok(f.text.pages.length >= 2);
        }
      }
      for (const f of parse(textOnly.jsonl).filter((r) => r.type === 'catalog_filing').flatMap((x) => x.files as Rec[])) {
        assert.equal(f.content, null);
        assert.ok(f.text.pages.length >= 2 && f.text.pages.length <= 8);
        for (const p of f.text.pages) assert.ok(p.length <= 3000, `page of ${p.length} characters`);
      }
    });
  });

  describe('PDF originals', () => {
    it('extract page by page (unpdf) to the pages the text-only set carries', async () => {
      const textPages = new Map<string, string[]>();
      for (const f of parse(textOnly.jsonl).filter((r) => r.type === 'catalog_filing').flatMap((x) => x.files as Rec[])) {
        textPages.set(f.fileId, f.text.pages);
      }
      const withContent = records.filter((r) => r.type === 'catalog_filing').flatMap((x) => x.files as Rec[]).filter((f) => f.content);
      let pages = 0;
      const started = process.hrtime.bigint();
      for (const f of withContent) {
        const bytes = await readFile(join(root, 'pdf-a', f.content.path));
        const pdf = await getDocumentProxy(new Uint8Array(bytes));
        const { totalPages, text } = await extractText(pdf, { mergePages: false });
        const expected = textPages.get(f.fileId)!;
        assert.equal(totalPages, expected.length, f.name);
        assert.equal(normalize(text[0]!), normalize(expected[0]!));
        assert.equal(normalize(text[totalPages - 1]!), normalize(expected[expected.length - 1]!));
        pages += totalPages;
      }
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      // Informational: the extraction rate the importer can expect for these PDFs.
      console.log(`      unpdf extracted ${pages} pages of ${withContent.length} PDFs in ${seconds.toFixed(2)} s (${Math.round(pages / seconds)} pages/s)`);
    });

    it('page 1 names the company, product and state of its filing', async () => {
      const filing = records.find((r) => r.type === 'catalog_filing')!;
      const file = (filing.files as Rec[]).find((f) => f.content)!;
      const pdf = await getDocumentProxy(new Uint8Array(await readFile(join(root, 'pdf-a', file.content.path))));
      const { text } = await extractText(pdf, { mergePages: false });
      const page1 = normalize(text[0]!);
      assert.ok(page1.includes(filing.companyName), page1.slice(0, 200));
      assert.ok(page1.includes(filing.productName));
      assert.ok(page1.includes(filing.sourceReference));
      assert.ok(page1.includes('Page 1 of'));
    });
  });
});
