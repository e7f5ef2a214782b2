import assert from 'node:assert/strict';
import { FILING_TYPES_NORMALIZED, NORMALIZED_OUTCOMES } from '../../src/domain/catalog-enums';
import { parseCatalogFilingRecord } from '../../commands/catalog/catalog-filing-record';
import { DISPOSITIONS, FILING_TYPES, REVIEW_TYPES, SCHEDULE_TYPES, completeFields } from '../../src/domain/filing-fields';
import { managedFilingDecider } from '../../commands/managed-filings/managed-filing';
import { CatalogListQuery } from '../../queries/catalog/catalog-filters';
import { CreateFilingBody, PatchFilingBody, PatchItemBody } from '../../src/http/schemas/working-filings';
import { filterProblems } from '../../queries/search/search-filters';
import { DomainError } from '../../src/domain/errors';
import { SUB_TOI_CODES, TOI_CODES, subToiFits } from '../../src/domain/toi-codes';
import { catalogFiling } from '../support/catalog-records';
import {
  SPEC_DISPOSITIONS,
  SPEC_FILING_TYPES,
  SPEC_FILING_TYPES_NORMALIZED,
  SPEC_NORMALIZED_OUTCOMES,
  SPEC_REVIEW_TYPES,
  SPEC_SCHEDULE_TYPES,
  SPEC_SUB_TOI,
  SPEC_TOI_CODES,
  subToiNeighbours,
} from '../support/spec-tables';

const ALL_SUB = [...SPEC_SUB_TOI.values()].flat();
const fields = completeFields({ companyId: 'c', jurisdictionId: 'j', primaryProductId: 'p', filingType: 'form' });

/** Whether the decider accepts a create with this pair (it checks the pair on the resulting filing). */
function createAccepts(toiCode: string | null, subToiCode: string | null): boolean {
  try {
    managedFilingDecider.decide(managedFilingDecider.initialState(), {
      type: 'CreateFiling', filingId: 'f', scope: 'mc:s', scopeId: 's', tenantId: 't', fields: { ...fields, toiCode, subToiCode }, now: '2025-01-01T00:00:00.000Z', actor: 'u',
    });
    return true;
  } catch (e) {
    if (e instanceof DomainError && e.code === 'invalid_request') return false;
    throw e;
  }
}

describe('the contract\'s data tables, checked against the spec text (table-driven)', () => {
  it('the spec text parses into its 37 TOI codes and 298 sub-TOI codes, each sub-TOI under one TOI', () => {
    assert.deepEqual([...SPEC_SUB_TOI.keys()], SPEC_TOI_CODES);
    assert.equal(SPEC_TOI_CODES.length, 37);
    assert.equal(ALL_SUB.length, 298);
    assert.equal(new Set(ALL_SUB).size, ALL_SUB.length);
  });

  it('rule: toiCode values and the subToiCode table per TOI are exactly the spec\'s (a-b expanded to every code)', () => {
    assert.deepEqual(TOI_CODES, SPEC_TOI_CODES);
    assert.deepEqual(Object.fromEntries(SUB_TOI_CODES), Object.fromEntries(SPEC_SUB_TOI));
  });

  it('rule: subToiCode must belong to toiCode: every (toiCode|null, subToiCode|null) pair is accepted iff the table lists it', () => {
    const subs = [...new Set([...ALL_SUB, ...SPEC_TOI_CODES.flatMap(subToiNeighbours), '21.4000', '4.0001', '04.00001', ''])];
    for (const toi of [...SPEC_TOI_CODES, null]) {
      assert.equal(subToiFits(toi, null), true, `${toi}/null`);
      assert.equal(createAccepts(toi, null), true, `${toi}/null`);
      for (const sub of subs) {
        const listed = toi !== null && SPEC_SUB_TOI.get(toi)!.includes(sub);
        assert.equal(subToiFits(toi, sub), listed, `${toi}/${sub}`);
        assert.equal(createAccepts(toi, sub), listed, `${toi}/${sub}`);
      }
    }
  });

  it('rule: create and PATCH bodies take every listed toiCode and subToiCode and nothing else', () => {
    for (const schema of [CreateFilingBody.partial(), PatchFilingBody]) {
      for (const v of [...SPEC_TOI_CODES, null]) assert.ok(schema.safeParse({ toiCode: v }).success, `toiCode ${v}`);
      for (const v of [...ALL_SUB, null]) assert.ok(schema.safeParse({ subToiCode: v }).success, `subToiCode ${v}`);
      for (const v of ['21.0', '07.0', '02.0', '4.0', '04', '04.00', '', 4]) assert.ok(!schema.safeParse({ toiCode: v }).success, `toiCode ${v}`);
      for (const v of ['21.4000', '04.0006', '28.2000', '4.0001', '04.00001', '']) assert.ok(!schema.safeParse({ subToiCode: v }).success, `subToiCode ${v}`);
    }
  });

  it('rule: managed filing enums (filingType, reviewType, disposition) and item scheduleType are exactly the spec\'s', () => {
    assert.deepEqual([...FILING_TYPES], SPEC_FILING_TYPES);
    assert.deepEqual([...REVIEW_TYPES], SPEC_REVIEW_TYPES);
    assert.deepEqual([...DISPOSITIONS], SPEC_DISPOSITIONS);
    assert.deepEqual([...SCHEDULE_TYPES], SPEC_SCHEDULE_TYPES);
    for (const [field, values, nullable] of [['filingType', SPEC_FILING_TYPES, false], ['reviewType', SPEC_REVIEW_TYPES, true], ['disposition', SPEC_DISPOSITIONS, true]] as const) {
      for (const schema of [CreateFilingBody.partial(), PatchFilingBody]) {
        for (const v of values) assert.ok(schema.safeParse({ [field]: v }).success, `${field} ${v}`);
        assert.equal(schema.safeParse({ [field]: null }).success, nullable, `${field} null`);
        for (const v of [...values.map((x) => x.toUpperCase()), 'other', '']) assert.ok(!schema.safeParse({ [field]: v }).success, `${field} ${v}`);
      }
    }
    for (const v of [...SPEC_SCHEDULE_TYPES, null]) assert.ok(PatchItemBody.safeParse({ scheduleType: v }).success, `scheduleType ${v}`);
    for (const v of ['FORM', 'correspondence', 'other', '']) assert.ok(!PatchItemBody.safeParse({ scheduleType: v }).success, `scheduleType ${v}`);
  });

  it('rule: normalizedOutcome and filingTypeNormalized are exactly the spec\'s in import records, list filters and search filters', () => {
    assert.deepEqual([...NORMALIZED_OUTCOMES], SPEC_NORMALIZED_OUTCOMES);
    assert.deepEqual([...FILING_TYPES_NORMALIZED], SPEC_FILING_TYPES_NORMALIZED);
    for (const [field, values] of [['normalizedOutcome', SPEC_NORMALIZED_OUTCOMES], ['filingTypeNormalized', SPEC_FILING_TYPES_NORMALIZED]] as const) {
      for (const v of values) {
        assert.equal(parseCatalogFilingRecord(catalogFiling({ [field]: v }))[field], v, `import ${field} ${v}`);
        assert.ok(CatalogListQuery.safeParse({ [field]: v }).success, `list ${field} ${v}`);
        assert.deepEqual(filterProblems({ field, operator: 'eq', value: v }), [], `search ${field} ${v}`);
        assert.deepEqual(filterProblems({ field, operator: 'in', value: [v] }), [], `search ${field} in ${v}`);
      }
      assert.ok(CatalogListQuery.safeParse({ [field]: [...values] }).success, `list ${field} all values`);
      for (const v of [...values.map((x) => x.toLowerCase()), 'CLOSED', '']) {
        assert.throws(() => parseCatalogFilingRecord(catalogFiling({ [field]: v })), Error, `import ${field} ${v}`);
        assert.ok(!CatalogListQuery.safeParse({ [field]: v }).success, `list ${field} ${v}`);
        assert.notDeepEqual(filterProblems({ field, operator: 'eq', value: v }), [], `search ${field} ${v}`);
      }
    }
  });
});
