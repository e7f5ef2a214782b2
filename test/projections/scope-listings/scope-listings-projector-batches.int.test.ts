import assert from 'node:assert/strict';
import { ScopeListingsProjector } from '../../../projections/scope-listings/scope-listings-projector';
import { ProjectorBench, inStreams } from '../../support/projector-batches';

const S1 = '0b7e3c1e-8a2f-4c55-9d1e-2f4a6b8c0d11';
const S2 = '0b7e3c1e-8a2f-4c55-9d1e-2f4a6b8c0d22';
const C1 = '6a1d2f00-1111-4c55-9d1e-2f4a6b8c0d11';
const P1 = '6a1d2f00-2222-4c55-9d1e-2f4a6b8c0d11';
const entry = (kind: string, id: string, scopeId: string, name: string, code: string | null = null) => ({
  stream: `${kind === 'company' ? 'scopeCompany' : 'scopeProduct'}-${id}`,
  type: 'ScopeListingEntryRecorded',
  data: { kind, id, scope: `mc:${scopeId}`, scopeId, name, code },
});

describe('scope listings projector: batches', function () {
  this.timeout(120_000);
  let bench: ProjectorBench;
  before(async () => (bench = await ProjectorBench.open()));
  after(async () => bench.close());

  it('rule: an entry recorded several times in one batch ends with its last name and code, under the scope it was first recorded in', async () => {
    const events = inStreams([
      entry('company', C1, S1, 'Acme', '12345'),
      entry('product', P1, S1, 'Shield'),
      entry('company', C1, S1, 'ACME Renamed', '54321'),
      entry('company', C1, S2, 'Acme Third', null),
    ]);
    const dump = await bench.assertBatchEquivalence(new ScopeListingsProjector(), events);
    const c = dump.scope_listing_entries.map((j) => JSON.parse(j) as Record<string, unknown>).find((r) => r.id === C1)!;
    assert.deepEqual([c.name, c.name_key, c.code, c.version, c.scope_id], ['Acme Third', 'acme third', null, 3, S1]);
  });
});
