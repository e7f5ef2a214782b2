import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../../src/cli/import/import-cli';
import type { ImportResult } from '../../commands/import/import-file';
import type { Runtime } from '../../src/runtime';

/** Object mothers for import records (OPERATIONS.md): valid by default, a test overrides what it is about. */
let seq = 0;
const next = () => ++seq;

export function catalogFiling(o: Record<string, unknown> = {}): Record<string, unknown> {
  const n = next();
  return {
    type: 'catalog_filing',
    id: crypto.randomUUID(),
    source: 'florida_irfs',
    sourceReference: `25-${String(100000 + n).padStart(6, '0')}`,
    state: 'FL',
    companyName: 'Acme Insurance Company',
    naicCompanyCodes: ['12345'],
    naicGroupCode: '100',
    carrierIds: ['carrier_12345'],
    groupId: 'carrier_group_100',
    productName: 'Homeowners Program',
    typeOfInsurance: 'Homeowners',
    subTypeOfInsurance: 'Owner Occupied Homeowners',
    toiCode: '04.0',
    subToiCode: '04.0003',
    filingType: 'Rate',
    sourceStatus: 'APPROVED',
    submissionDate: '2025-03-01',
    dispositionDate: '2025-04-01',
    businessType: 'Property',
    normalizedOutcome: 'APPROVED',
    filingTypeNormalized: 'RATE',
    stateStatusChangedDate: '2025-04-01',
    description: `Filing ${n} description`,
    files: [],
    ...o,
  };
}

export function serffFiling(o: Record<string, unknown> = {}): Record<string, unknown> {
  return catalogFiling({ source: 'serff', sourceReference: `ALSE-${134000000 + next()}`, state: 'TX', sourceStatus: 'Closed-Approved', ...o });
}

export function file(o: Record<string, unknown> = {}): Record<string, unknown> {
  return { fileId: crypto.randomUUID(), name: 'form.pdf', role: 'form', versionId: null, mimeType: 'application/pdf', restricted: false, content: null, text: { pages: ['page one', 'page two'] }, ...o };
}

export function carrierGroup(o: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'carrier_group', id: 'carrier_group_100', name: 'Acme Group', identifiers: [{ scheme: 'naic_group', value: '0100' }], ...o };
}

export function carrier(o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'carrier',
    id: 'carrier_12345',
    name: 'Acme Insurance Company',
    identifiers: [{ scheme: 'naic_company', value: '12345' }],
    groupId: 'carrier_group_100',
    domicile: 'TX',
    status: 'active',
    aliases: [],
    grossPremiumWritten: null,
    cessionRatio: null,
    mergedInto: null,
    ...o,
  };
}

export function mga(o: Record<string, unknown> = {}): Record<string, unknown> {
  return { type: 'mga', id: 'mga_cyber-one', slug: 'cyber-one', name: 'Cyber One MGA', aliases: [], carriers: [], ...o };
}

export function product(o: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    type: 'product',
    id: `product_${next()}`,
    name: 'Cyber Shield',
    productType: 'cyber',
    admitted: true,
    predecessorProductId: null,
    note: null,
    groupId: null,
    mgaId: null,
    availability: [],
    claims: [],
    filings: [],
    ...o,
  };
}

export function writeJsonl(records: unknown[], dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-import-'))): string {
  const f = path.join(dir, 'records.jsonl');
  fs.writeFileSync(f, records.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n') + '\n');
  return f;
}

/** Imports records through the real import code path and waits for every projection. */
export async function importRecords(rt: Runtime, records: unknown[]): Promise<ImportResult> {
  const f = writeJsonl(records);
  try {
    return await runImport(rt, f, { wait: true });
  } finally {
    fs.rmSync(path.dirname(f), { recursive: true, force: true });
  }
}
