import { catalogFilingDecider } from '../../../commands/catalog/catalog-filing';
import type { CatalogFilingFields } from '../../../src/domain/events/catalog';
import { carrierDecider } from '../../../commands/directory/carrier';
import { carrierGroupDecider } from '../../../commands/directory/carrier-group';
import { mgaDecider } from '../../../commands/directory/mga';
import { productDecider } from '../../../commands/directory/product';
import type { CarrierRecord, ProductRecord } from '../../../src/domain/directory-records';
import { spec } from '../../support/decider-spec';


const carrierRec: CarrierRecord = {
  id: 'carrier_1',
  name: 'Acme',
  identifiers: [{ scheme: 'naic_company', value: '12345' }],
  groupId: null,
  domicile: 'TX',
  status: 'active',
  aliases: ['A'],
  grossPremiumWritten: null,
  cessionRatio: null,
  mergedInto: null,
};
const productRec: ProductRecord = {
  id: 'product_1',
  name: 'Cyber',
  productType: 'cyber',
  admitted: true,
  predecessorProductId: null,
  note: null,
  groupId: null,
  mgaId: null,
  availability: [{ state: 'TX', writingCompanyIds: ['carrier_1'], toiCodes: ['17.0'], subtoiCodes: [], note: null }],
  claims: [],
  filings: [],
};

const catalogRec: CatalogFilingFields = {
  id: '7b0c8a57-3f2e-4b8f-9c59-1b7e2d4e5f60',
  source: 'serff',
  sourceReference: 'ALSE-134016536',
  state: 'TX',
  companyName: 'Acme',
  naicCompanyCodes: ['12345'],
  naicGroupCode: null,
  carrierIds: null,
  groupId: null,
  productName: 'P',
  typeOfInsurance: 'T',
  subTypeOfInsurance: 'S',
  toiCode: null,
  subToiCode: null,
  filingType: 'Rate',
  sourceStatus: 'Closed-Approved',
  submissionDate: '2025-01-01',
  dispositionDate: null,
  businessType: 'Property',
  normalizedOutcome: 'APPROVED',
  filingTypeNormalized: 'RATE',
  stateStatusChangedDate: null,
  description: null,
};

describe('directory and catalog deciders (given/when/then)', () => {
  const carrier = spec(carrierDecider);
  const group = spec(carrierGroupDecider);
  const mga = spec(mgaDecider);
  const product = spec(productDecider);
  const filing = spec(catalogFilingDecider);

  it('rule: a first import appends Imported; the same record again appends nothing; a changed one appends Updated', () => {
    carrier([], { type: 'Import', record: carrierRec }).then([{ type: 'CarrierImported', data: carrierRec }]);
    const imported = { type: 'CarrierImported' as const, data: carrierRec };
    // Key order does not make a record "changed".
    const reordered = Object.fromEntries(Object.entries(carrierRec).reverse()) as unknown as CarrierRecord;
    carrier([imported], { type: 'Import', record: reordered }).then([]);
    const renamed = { ...carrierRec, name: 'Acme Mutual' };
    carrier([imported], { type: 'Import', record: renamed }).then([{ type: 'CarrierUpdated', data: renamed }]);
    carrier([imported, { type: 'CarrierUpdated', data: renamed }], { type: 'Import', record: renamed }).then([]);
  });

  it('rule: a carrier cannot be merged into itself', () => {
    carrier([], { type: 'Import', record: { ...carrierRec, mergedInto: 'carrier_1' } }).thenError('invalid_request');
  });

  it('rule: a carrier group has at most one naic_group identifier', () => {
    const rec = { id: 'carrier_group_1', name: 'G', identifiers: [{ scheme: 'naic_group', value: '0100' }] };
    group([], { type: 'Import', record: rec }).then([{ type: 'CarrierGroupImported', data: rec }]);
    group([], { type: 'Import', record: { ...rec, identifiers: [...rec.identifiers, { scheme: 'naic_group', value: '0200' }] } }).thenError('invalid_request');
  });

  it('rule: an MGA links each carrier once', () => {
    const link = { carrierId: 'carrier_1', role: 'fronting', sourceNotes: null };
    const rec = { id: 'mga_x', slug: 'x', name: 'X', aliases: [], carriers: [link] };
    mga([], { type: 'Import', record: rec }).then([{ type: 'MgaImported', data: rec }]);
    mga([], { type: 'Import', record: { ...rec, carriers: [link, link] } }).thenError('invalid_request');
  });

  it('rule: product availability is one row per state, and a product is not its own predecessor', () => {
    product([], { type: 'Import', record: productRec }).then([{ type: 'ProductImported', data: productRec }]);
    product([], { type: 'Import', record: { ...productRec, availability: [...productRec.availability, ...productRec.availability] } }).thenError('invalid_request');
    product([], { type: 'Import', record: { ...productRec, predecessorProductId: 'product_1' } }).thenError('invalid_request');
    product([{ type: 'ProductImported', data: productRec }], { type: 'Import', record: { ...productRec, admitted: false } }).then([
      { type: 'ProductUpdated', data: { ...productRec, admitted: false } },
    ]);
  });

  it('rule: catalog filings: unchanged re-import appends nothing, a change appends the full record, the source is fixed', () => {
    const f = catalogRec;
    const cmd = { type: 'ImportCatalogFiling' as const, filing: f, files: [] };
    filing([], cmd).then([{ type: 'CatalogFilingImported', data: { filing: f, files: [] } }]);
    const given = [{ type: 'CatalogFilingImported' as const, data: { filing: f, files: [] } }];
    filing(given, cmd).then([]);
    filing(given, { ...cmd, filing: { ...f, sourceStatus: 'Closed-Withdrawn' } }).then([
      { type: 'CatalogFilingUpdated', data: { filing: { ...f, sourceStatus: 'Closed-Withdrawn' }, files: [] } },
    ]);
    filing(given, { ...cmd, filing: { ...f, source: 'florida_irfs' } }).thenError('invalid_request');
  });

  it('rule: a catalog filing without a company name (null: spec, not marked required) is imported; the same record again appends nothing; naming or losing the company later appends Updated', () => {
    const nameless: CatalogFilingFields = { ...catalogRec, companyName: null };
    const cmd = { type: 'ImportCatalogFiling' as const, filing: nameless, files: [] };
    filing([], cmd).then([{ type: 'CatalogFilingImported', data: { filing: nameless, files: [] } }]);
    const given = [{ type: 'CatalogFilingImported' as const, data: { filing: nameless, files: [] } }];
    filing(given, cmd).then([]);
    filing(given, { ...cmd, filing: catalogRec }).then([{ type: 'CatalogFilingUpdated', data: { filing: catalogRec, files: [] } }]);
    filing([{ type: 'CatalogFilingImported', data: { filing: catalogRec, files: [] } }], cmd).then([{ type: 'CatalogFilingUpdated', data: { filing: nameless, files: [] } }]);
  });
});
