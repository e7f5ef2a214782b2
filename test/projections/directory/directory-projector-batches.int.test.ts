import assert from 'node:assert/strict';
import { DirectoryProjector } from '../../../projections/directory/directory-projector';
import { carrier, carrierGroup, mga, product } from '../../support/catalog-records';
import { ProjectorBench, inStreams } from '../../support/projector-batches';

/** An import record as the event data its importer appends (the record without its `type`). */
const data = (record: Record<string, unknown>) => {
  const { type: _type, ...rest } = record;
  return rest;
};
const ev = (stream: string, type: string, record: Record<string, unknown>) => ({ stream, type, data: data(record) });
const row = (avail: { state: string; companies?: string[] }) => ({ state: avail.state, writingCompanyIds: avail.companies ?? [], toiCodes: ['17.0'], subtoiCodes: [], note: null });

describe('directory projector: batches', function () {
  this.timeout(120_000);
  let bench: ProjectorBench;
  before(async () => (bench = await ProjectorBench.open()));
  after(async () => bench.close());

  it('rule: a carrier updated several times and then merged in one batch answers with its last state (merged into the survivor)', async () => {
    const events = inStreams([
      ev('carrierGroup-g1', 'CarrierGroupImported', carrierGroup({ id: 'g1' })),
      ev('carrier-c1', 'CarrierImported', carrier({ id: 'c1', name: 'Old Name', grossPremiumWritten: { year: 2024, amount: 5 } })),
      ev('carrier-c2', 'CarrierImported', carrier({ id: 'c2', name: 'Survivor' })),
      ev('carrier-c1', 'CarrierUpdated', carrier({ id: 'c1', name: 'New Name', aliases: ['Alias'] })),
      ev('carrier-c1', 'CarrierUpdated', carrier({ id: 'c1', name: 'New Name', aliases: ['Alias'], mergedInto: 'c2', status: 'merged' })),
      ev('carrierGroup-g1', 'CarrierGroupUpdated', carrierGroup({ id: 'g1', name: 'Renamed Group' })),
      ev('mga-m1', 'MgaImported', mga({ id: 'm1', carriers: [{ carrierId: 'c2', role: 'fronting', sourceNotes: null }] })),
    ]);
    const p = new DirectoryProjector();
    const dump = await bench.assertBatchEquivalence(p, events);
    // Absent figures are SQL NULL (the queries test `is null`), not a JSON null.
    const t = await bench.tables(p, 'nulls');
    await bench.apply(p, t, events, 'all');
    const nulls = await bench.knex.raw(`select id from ?? where gross_premium_written is null and cession_ratio is null order by id`, [t('dir_carriers')]);
    assert.deepEqual(nulls.rows.map((r: { id: string }) => r.id), ['c1', 'c2']);
    const carriers = dump.dir_carriers.map((j) => JSON.parse(j) as Record<string, unknown>);
    const c1 = carriers.find((c) => c.id === 'c1')!;
    assert.equal(c1.name, 'New Name');
    assert.equal(c1.merged_into, 'c2');
    assert.equal(c1.version, 3);
    assert.equal(c1.gross_premium_written, null);
    assert.equal(JSON.parse(dump.dir_carrier_groups[0]).name, 'Renamed Group');
  });

  it('rule: a product whose availability shrinks within one batch keeps only its last availability rows', async () => {
    const events = inStreams([
      ev('product-p1', 'ProductImported', product({ id: 'p1', availability: [row({ state: 'TX' }), row({ state: 'FL' }), row({ state: 'CA' })] })),
      ev('product-p2', 'ProductImported', product({ id: 'p2', availability: [row({ state: 'NY' })] })),
      ev('product-p1', 'ProductUpdated', product({ id: 'p1', availability: [row({ state: 'GA', companies: ['c1'] })] })),
      ev('product-p2', 'ProductUpdated', product({ id: 'p2', availability: [] })),
    ]);
    const dump = await bench.assertBatchEquivalence(new DirectoryProjector(), events);
    const rows = dump.dir_product_availability.map((j) => JSON.parse(j) as Record<string, unknown>);
    assert.deepEqual(rows.map((r) => [r.product_id, r.state, r.writing_company_ids]), [['p1', 'GA', ['c1']]]);
  });
});
