import assert from 'node:assert/strict';
import { sortKeys } from '../../../queries/catalog/catalog-filters';
import { pageBranches } from '../../../queries/catalog/keyset';
import { join } from '../../../infra/postgres/sql';

/** Each branch of a page as `where ... order by ...`, values inline. */
function branches(sort: string[], after: { v: (string | null)[]; id: string } | null): string[] {
  return pageBranches(sortKeys(sort), after).map((b) => {
    const w = join(b.where(), ' and ');
    const where = w.text.replace(/\$(\d+)/g, (_, n: string) => `'${String(w.values[Number(n) - 1])}'`);
    return `${where || 'all'} |${b.order}`;
  });
}

const AFTER = { id: 'i' };

describe('catalog keyset: each branch ordered as its index reads it', () => {
  it('rule: a sort its indexes read forward is one statement in the spec order (given -submissionDate, companyName, state either way)', () => {
    assert.deepEqual(branches(['-submissionDate'], null), ['all | order by "submission_date" desc nulls last, "id" asc']);
    assert.deepEqual(branches(['companyName'], null), ['all | order by "company_name" asc nulls last, "id" asc']);
    assert.deepEqual(branches(['-state'], null), ['all | order by "state" desc nulls last, "id" asc']);
  });

  it('rule: the first page of a nullable key read backward is its non-null rows nulls first, then its null rows in the index order', () => {
    assert.deepEqual(branches(['submissionDate', 'companyName'], null), [
      '"submission_date" is not null | order by "submission_date" asc nulls first, "company_name" asc nulls last, "id" asc',
      '"submission_date" is null | order by "submission_date" desc nulls last, "company_name" asc nulls last, "id" asc',
    ]);
    assert.deepEqual(branches(['-companyName'], null), [
      '"company_name" is not null | order by "company_name" desc nulls first, "id" asc',
      '"company_name" is null | order by "company_name" asc nulls last, "id" asc',
    ]);
  });

  it('rule: a NOT NULL key read backward is written nulls first and has no is-null branch', () => {
    assert.deepEqual(branches(['-sourceReference'], null), ['all | order by "source_reference_key" desc nulls first, "id" asc']);
    assert.deepEqual(branches(['-sourceReference'], { v: ['K'], ...AFTER }), [
      `"source_reference_key" < 'K' | order by "source_reference_key" desc nulls first, "id" asc`,
      `"source_reference_key" >= 'K' and "source_reference_key" <= 'K' and "id" > 'i' | order by "source_reference_key" desc nulls first, "id" asc`,
    ]);
  });

  it('rule: after a position, a key equal in the branch is written in its index direction, a strictly-after key nulls first, a later key as the spec orders it', () => {
    assert.deepEqual(branches(['dispositionDate', '-companyName'], { v: ['2021-06-01', 'C'], ...AFTER }), [
      `"disposition_date" > '2021-06-01' | order by "disposition_date" asc nulls first, "company_name" desc nulls last, "id" asc`,
      `"disposition_date" is null | order by "disposition_date" desc nulls last, "company_name" desc nulls last, "id" asc`,
      `"disposition_date" >= '2021-06-01' and "disposition_date" <= '2021-06-01' and "company_name" < 'C' | order by "disposition_date" desc nulls last, "company_name" desc nulls first, "id" asc`,
      `"disposition_date" >= '2021-06-01' and "disposition_date" <= '2021-06-01' and "company_name" is null | order by "disposition_date" desc nulls last, "company_name" asc nulls last, "id" asc`,
      `"disposition_date" >= '2021-06-01' and "disposition_date" <= '2021-06-01' and "company_name" >= 'C' and "company_name" <= 'C' and "id" > 'i' | order by "disposition_date" desc nulls last, "company_name" asc nulls last, "id" asc`,
    ]);
  });

  it('rule: after a position among the null rows of a key, only rows of the same null with a greater id follow', () => {
    assert.deepEqual(branches(['submissionDate'], { v: [null], ...AFTER }), [`"submission_date" is null and "id" > 'i' | order by "submission_date" desc nulls last, "id" asc`]);
  });
});
