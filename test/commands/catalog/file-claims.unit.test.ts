import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import type { CatalogFilingCommand } from '../../../commands/catalog/catalog-filing';
import { catalogFileClaims } from '../../../commands/catalog/file-claims';
import { BatchClaims } from '../../../infra/eventstore/batch-claims';
import type { ClaimStore } from '../../../src/ports/claim-store';
import { DomainError } from '../../../src/domain/errors';
import { aBareFile, aFiling } from '../../support/catalog-filing-mother';

const noStore: ClaimStore = { take: () => Promise.reject(new Error('a pure rule reads no store')) };
const rule = catalogFileClaims(noStore);

describe('catalog file claims: a file id belongs to one catalog filing (given/when/then, no I/O)', () => {
  const filing = aFiling();
  const [f1, f2, f3] = [aBareFile(), aBareFile(), aBareFile()];
  const when = (files = [f1, f2]): CatalogFilingCommand => ({ type: 'ImportCatalogFiling', filing, files });

  it('rule: an import that appends claims every file id its record lists, for its filing', () => {
    assert.deepEqual(rule.claimsOf(when()), [
      { key: f1.fileId, owner: filing.id },
      { key: f2.fileId, owner: filing.id },
    ]);
  });

  it('rule: an update claims its whole list again, not only the added ids (its own ids are no conflict; an id another filing holds is, even one the stream listed before the claims existed)', () => {
    assert.deepEqual(rule.claimsOf(when([{ ...f1, name: 'renamed.pdf' }, f3])), [
      { key: f1.fileId, owner: filing.id },
      { key: f3.fileId, owner: filing.id },
    ]);
    assert.deepEqual(rule.claimsOf(when([])), []);
  });

  it('rule: the refusal names the file and the filing that holds it, as a 409 line error', () => {
    const e = rule.refusal({ key: f1.fileId, owner: filing.id }, 'f0000000-0000-4000-8000-000000000000');
    assert.ok(e instanceof DomainError);
    assert.equal(e.status, 409);
    assert.equal(e.code, 'file_claimed');
    assert.equal(e.message, `file ${f1.fileId} already belongs to catalog filing f0000000-0000-4000-8000-000000000000`);
  });
});

describe('claims of one append batch (no I/O)', () => {
  const key = () => crypto.randomUUID();
  const [a, b] = ['filing-a', 'filing-b'];

  it('rule: within a batch the first claimant of a key keeps it; a later job of another owner is refused, one of the same owner is not', () => {
    const [k1, k2] = [key(), key()];
    const batch = new BatchClaims();
    batch.add(0, [{ key: k1, owner: a }, { key: k2, owner: a }]);
    batch.add(1, [{ key: k2, owner: b }]);
    batch.add(2, [{ key: k1, owner: a }]);
    // Each key goes to the store once, for its first claimant.
    assert.deepEqual(batch.toTake, [{ key: k1, owner: a }, { key: k2, owner: a }]);
    const refused = batch.settle(new Map());
    assert.deepEqual([...refused.entries()], [[1, { claim: { key: k2, owner: b }, holder: a }]]);
  });

  it('rule: a key the store reports held by another owner refuses every job of the batch that claims it', () => {
    const [k1, k2] = [key(), key()];
    const batch = new BatchClaims();
    batch.add(0, [{ key: k1, owner: a }]);
    batch.add(1, [{ key: k2, owner: b }]);
    batch.add(2, []);
    const refused = batch.settle(new Map([[k1, 'filing-z']]));
    assert.deepEqual([...refused.entries()], [[0, { claim: { key: k1, owner: a }, holder: 'filing-z' }]]);
  });

  it('rule: a job is refused once, for its first refused key', () => {
    const [k1, k2] = [key(), key()];
    const batch = new BatchClaims();
    batch.add(0, [{ key: k1, owner: b }, { key: k2, owner: b }]);
    const refused = batch.settle(new Map([[k1, a], [k2, a]]));
    assert.deepEqual([...refused.entries()], [[0, { claim: { key: k1, owner: b }, holder: a }]]);
  });
});
