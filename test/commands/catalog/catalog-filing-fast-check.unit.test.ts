import assert from 'node:assert/strict';
import { generatedFiling } from '../../../bench/catalog-generator';
import { isIsoDate, isIsoDateFast } from '../../../src/domain/catalog-enums';
import { fastCatalogFilingRecord } from '../../../commands/catalog/catalog-filing-fast-check';
import { parseCatalogFilingRecord } from '../../../commands/catalog/catalog-filing-record';
import { catalogFilingRecord } from '../../../commands/catalog/catalog-filing-schema';
import { ImportRecordError } from '../../../src/domain/errors';
import { parseRecord } from '../../../commands/import/record-schema';
import { catalogFiling } from '../../support/catalog-records';

/** A deterministic pseudo-random sequence, so a failing case can be replayed. */
function rng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Values a field may be set to: valid ones of other fields, edge lengths, wrong types, case and space variants. */
const VALUES: unknown[] = [
  undefined, null, '', ' ', 'x', 'x'.repeat(256), 'x'.repeat(257), ' '.repeat(3) + 'y'.repeat(256) + ' ', 'x'.repeat(1000), 'x'.repeat(1001),
  'x'.repeat(20000), 'x'.repeat(20001), 'x'.repeat(100001), 0, 1, 12345, true, false, [], {}, [null], [''], ['12345'], ['1234'], ['12345', '123456'],
  ['carrier_1'], ['carrier_group_1'], ['carrier_a b'], 'carrier_1', 'carrier_group_1', 'carrier_group_', 'carrier_', 'serff', 'florida_irfs', 'SERFF',
  'catalog_filing', 'catalog_filings', 'tx', 'TX', 'T', 'TXS', '1X', '04.0', '4.0', '04.00', '04.0003', '19.0003', '04.003', '2020-02-29', '2019-02-29',
  '2020-13-01', '2020-00-10', '2020-01-32', '2020-1-01', ' 2020-01-01', '0000-02-29', '1900-02-29', '2000-02-29', 'FL-123', 'fl-25-000001', ' FL-1 ', 'FL-', ' fl- ',
  '  ABCD-1  ', 'abcd-1', '00', '007', '00000', '000000', '12a', 'APPROVED', 'approved', 'RATE', 'FORM_RATE_RULE', 'form', 'rate', 'manual',
  'application/pdf', 'x'.repeat(255), 'x'.repeat(256), '123E4567-E89B-12D3-A456-426614174000', '123e4567-e89b-12d3-a456-426614174000',
  '123e4567-e89b-12d3-a456-42661417400', '123e4567e89b12d3a456426614174000', { path: 'a.txt' }, { path: '' }, { base64: '' }, { base64: 'aGk=' },
  { path: 'a', base64: 'b' }, { url: 'x' }, { pages: [] }, { pages: ['a', 'b'] }, { pages: [1] }, { pages: 'a' }, { pages: [], extra: 1 },
];

const FILE_FIELDS = ['fileId', 'name', 'role', 'versionId', 'mimeType', 'restricted', 'content', 'text', 'extra'];

function set(o: Record<string, unknown>, key: string, v: unknown): void {
  if (v === undefined) delete o[key];
  else o[key] = v;
}

/** One random change to a record: a top-level field, a field of one of its files, or the files list itself. */
function mutate(r: Record<string, unknown>, rand: () => number): void {
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(rand() * xs.length)];
  const files = r.files;
  if (Array.isArray(files) && files.length && rand() < 0.4) {
    const f = files[Math.floor(rand() * files.length)];
    if (f && typeof f === 'object' && !Array.isArray(f)) set(f as Record<string, unknown>, pick(FILE_FIELDS), pick(VALUES));
    else files.push(pick(VALUES));
    return;
  }
  if (rand() < 0.1) {
    const fs = Array.isArray(files) ? files : [];
    r.files = rand() < 0.5 ? [...fs, ...fs] : pick([null, undefined, {}, 'x', []]);
    if (r.files === undefined) delete r.files;
    return;
  }
  set(r, pick([...Object.keys(catalogFilingRecord.in.shape), 'extra', '__proto__']), pick(VALUES));
}

function zod(r: Record<string, unknown>): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: parseRecord(catalogFilingRecord, r) };
  } catch (e) {
    assert.ok(e instanceof ImportRecordError);
    return { ok: false };
  }
}

/** Records as the import sees them: parsed from JSON text. */
const fromJson = (r: Record<string, unknown>) => JSON.parse(JSON.stringify(r)) as Record<string, unknown>;

function bases(rand: () => number): Record<string, unknown>[] {
  const withFiles = catalogFiling({
    files: [
      { fileId: '123E4567-E89B-12D3-A456-426614174000', name: 'a.pdf', role: 'form', content: { path: 'a.pdf' } },
      { fileId: '123e4567-e89b-12d3-a456-426614174001', name: 'b.txt', role: 'rate', versionId: 'v1', mimeType: 'text/plain', restricted: true, content: { base64: 'aGk=' }, text: { pages: ['p1', ''] } },
    ],
  });
  return [generatedFiling(1, rand, 3), generatedFiling(2, rand, 0), catalogFiling(), catalogFiling({ source: 'serff', sourceReference: ' abcd-123 ', state: 'tx' }), withFiles].map(fromJson);
}

describe('catalog_filing fast validation path', () => {
  it('rule: accepts the common well-formed record with exactly what the zod schema returns', () => {
    const rand = rng(1);
    for (let i = 0; i < 200; i++) {
      const r = fromJson(generatedFiling(i, rand, i % 4));
      const fast = fastCatalogFilingRecord(r);
      assert.ok(fast, 'a generated record takes the fast path');
      assert.deepStrictEqual(fast, zod(r).ok ? parseRecord(catalogFilingRecord, r) : null);
    }
    for (const r of bases(rand)) assert.deepStrictEqual(fastCatalogFilingRecord(r), parseRecord(catalogFilingRecord, r));
  });

  it('rule: over random mutations, the fast path never accepts what zod rejects and never returns anything else than zod', () => {
    const rand = rng(42);
    let fastAccepted = 0;
    let zodAccepted = 0;
    let rejected = 0;
    for (let i = 0; i < 4000; i++) {
      const base = bases(rand)[i % 5];
      const n = rand() < 0.6 ? 1 : 2 + Math.floor(rand() * 2);
      for (let k = 0; k < n; k++) mutate(base, rand);
      const r = fromJson(base);
      const fast = fastCatalogFilingRecord(r);
      const z = zod(r);
      if (fast) {
        assert.ok(z.ok, `zod rejects what the fast path accepted: ${JSON.stringify(r).slice(0, 2000)}`);
        assert.deepStrictEqual(fast, z.value);
        fastAccepted++;
      } else if (z.ok) zodAccepted++;
      else rejected++;
    }
    // The generated mutations must exercise all three outcomes for the comparison to mean something.
    assert.ok(fastAccepted > 400 && rejected > 400 && zodAccepted >= 0, `fast ${fastAccepted}, zod only ${zodAccepted}, rejected ${rejected}`);
  });

  it('rule: a bad record still gets the zod message (the fast path only ever says "not sure")', () => {
    assert.throws(() => parseCatalogFilingRecord(fromJson(catalogFiling({ state: 'Texas' }))), /state: must be a two-letter state code/);
    assert.throws(() => parseCatalogFilingRecord(fromJson(catalogFiling({ toiCode: '04.0', subToiCode: '19.0001' }))), /subToiCode: sub-TOI 19.0001 does not belong to TOI 04.0/);
    assert.throws(() => parseCatalogFilingRecord(fromJson(catalogFiling({ bogus: 1 }))), /record: unknown field\(s\) bogus/);
  });

  it('rule: dates are YYYY-MM-DD dates Postgres can store: year 0000 is a bad line, not an event the projections cannot apply', () => {
    assert.equal(isIsoDate('0000-01-01'), false);
    assert.equal(isIsoDateFast('0000-01-01'), false);
    assert.equal(isIsoDateFast('0001-01-01'), true);
    assert.throws(() => parseCatalogFilingRecord(fromJson(catalogFiling({ submissionDate: '0000-01-01' }))), /submissionDate: must be a date YYYY-MM-DD/);
  });

  it('rule: a Florida sourceReference is the file log number without FL-: a bare FL- is no reference (a bad line, not an empty reference)', () => {
    assert.throws(() => parseCatalogFilingRecord(fromJson(catalogFiling({ sourceReference: 'FL-' }))), /sourceReference: /);
    assert.throws(() => parseCatalogFilingRecord(fromJson(catalogFiling({ sourceReference: ' fl- ' }))), /sourceReference: /);
    assert.equal(parseCatalogFilingRecord(fromJson(catalogFiling({ sourceReference: 'FL-26-1' }))).sourceReference, '26-1');
    assert.equal(parseCatalogFilingRecord(fromJson(catalogFiling({ source: 'serff', sourceReference: 'FL-' }))).sourceReference, 'FL-');
  });

  it('rule: companyName may be null or left out (spec, Resources: not marked required): the record parses with companyName null, on the fast path too', () => {
    const { companyName: _absent, ...withoutName } = catalogFiling();
    for (const r of [fromJson(catalogFiling({ companyName: null })), fromJson(withoutName)]) {
      assert.equal(parseCatalogFilingRecord(r).companyName, null);
      const fast = fastCatalogFilingRecord(r);
      assert.ok(fast, 'a record without a company name takes the fast path');
      assert.deepStrictEqual(fast, parseRecord(catalogFilingRecord, r));
    }
    // Still text when given: a wrong type is a bad line with the schema's message.
    assert.throws(() => parseCatalogFilingRecord(fromJson(catalogFiling({ companyName: 12 }))), /companyName: /);
  });

  it('isIsoDateFast agrees with isIsoDate on every day, month and leap-year edge', () => {
    const years = ['0000', '0001', '0004', '0100', '0400', '1600', '1700', '1899', '1900', '1996', '1999', '2000', '2023', '2024', '2100', '2400', '9999'];
    const two = (n: number) => String(n).padStart(2, '0');
    for (const y of years)
      for (let m = 0; m <= 13; m++)
        for (let d = 0; d <= 32; d++) {
          const s = `${y}-${two(m)}-${two(d)}`;
          assert.equal(isIsoDateFast(s), isIsoDate(s), s);
        }
    for (const s of ['2020-01-1', '20200101', '2020-01-01 ', '+02020-01-01', '2020-01-01T00:00:00Z', '２０２０-01-01', '']) assert.equal(isIsoDateFast(s), isIsoDate(s), s);
  });
});
