import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import { SEARCH_PROJECTION } from '../../../src/read-models/search';
import { carrier, carrierGroup, catalogFiling, file, importRecords } from '../../support/catalog-records';
import { dropTestIndexes, testElasticsearchUrl, uniqueAlias } from '../../support/elasticsearch';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';

/**
 * The spec maps search's `groupId` to the list's `group`, so both select the same filings: through the group's
 * NAIC group code or its unmerged carriers' current NAIC company codes, never through the filing's own groupId
 * field. Run on every search adapter the environment offers (Postgres always; Elasticsearch with ELASTICSEARCH_URL).
 */
const url = testElasticsearchUrl();
const adapters: { name: string; overrides: () => Record<string, unknown>; cleanup?: (alias: string) => Promise<void> }[] = [{ name: 'Postgres full-text search', overrides: () => ({}) }];
if (url) {
  adapters.push({
    name: 'Elasticsearch',
    overrides: () => ({ elasticsearchUrl: url, elasticsearchIndex: uniqueAlias('ifrs-e2e-group') }),
    cleanup: async (alias) => {
      const es = new Client({ node: url });
      await dropTestIndexes(es, alias);
      await es.close();
    },
  });
} else {
  console.log('Search groupId = list group on Elasticsearch — ELASTICSEARCH_URL not set; that half did NOT run (start it: eval "$(infra/servers/elasticsearch.sh start)")');
}

for (const adapter of adapters) {
  describe(`POST /insurance/filings/search groupId selects what GET /insurance/filings group= selects (${adapter.name})`, function () {
    this.timeout(120_000);
    let t: TestRuntime;
    let viewer: TestCaller;
    const overrides = adapter.overrides();
    // Every filing's text holds the word, so the text match selects them all and only the filters decide.
    const text = () => [file({ text: { pages: ['Windstorm deductible schedule for coastal dwellings.'] } })];
    const filing = (o: Record<string, unknown>) => catalogFiling({ companyName: 'Group Rule Mutual', submissionDate: '2024-05-01', files: text(), ...o });
    const F = {
      // The usual case: the group's code, its groupId and a member's company code.
      byAll: filing({ naicGroupCode: '700', groupId: 'carrier_group_700', naicCompanyCodes: ['70001'], carrierIds: ['carrier_70001'] }),
      // The source's group code, but no directory match for the group or the company.
      byGroupCodeOnly: filing({ naicGroupCode: '700', groupId: null, naicCompanyCodes: ['55555'], carrierIds: [] }),
      // No group at all on the filing, but a member's current company code.
      byMemberCodeOnly: filing({ naicGroupCode: null, groupId: null, naicCompanyCodes: ['70002'], carrierIds: ['carrier_70002'] }),
      // A multi-company filing of another group that names a member company too.
      byCoFiler: filing({ naicGroupCode: '121', groupId: 'carrier_group_121', naicCompanyCodes: ['12121', '70002'], carrierIds: ['carrier_12121', 'carrier_70002'] }),
      // The filing's own groupId says 700, but neither its group code nor its companies belong to the group.
      byOwnGroupIdOnly: filing({ naicGroupCode: '999', groupId: 'carrier_group_700', naicCompanyCodes: ['99901'], carrierIds: [] }),
      // The code of a carrier of the group that was merged away: not a current code of a member.
      byMergedCode: filing({ naicGroupCode: null, groupId: null, naicCompanyCodes: ['70003'], carrierIds: ['carrier_70003'] }),
      // The code of a member of another group (the survivor of the merged carrier).
      byOtherGroup: filing({ naicGroupCode: '121', groupId: 'carrier_group_121', naicCompanyCodes: ['12121'], carrierIds: ['carrier_12121'] }),
    };

    before(async () => {
      t = await startTestRuntime(overrides);
      viewer = await makeCaller(t.rt);
      const result = await importRecords(t.rt, [
        carrierGroup({ id: 'carrier_group_700', name: 'Seven Hundred Group', identifiers: [{ scheme: 'naic_group', value: '0700' }] }),
        carrierGroup({ id: 'carrier_group_121', name: 'Other Group', identifiers: [{ scheme: 'naic_group', value: '121' }] }),
        carrier({ id: 'carrier_70001', name: 'Seven One', identifiers: [{ scheme: 'naic_company', value: '70001' }], groupId: 'carrier_group_700' }),
        carrier({ id: 'carrier_70002', name: 'Seven Two', identifiers: [{ scheme: 'naic_company', value: '70002' }], groupId: 'carrier_group_700' }),
        carrier({ id: 'carrier_12121', name: 'Other One', identifiers: [{ scheme: 'naic_company', value: '12121' }], groupId: 'carrier_group_121' }),
        carrier({ id: 'carrier_70003', name: 'Seven Three', identifiers: [{ scheme: 'naic_company', value: '70003' }], groupId: 'carrier_group_700', mergedInto: 'carrier_12121' }),
        ...Object.values(F),
      ]);
      assert.equal(result.failed, 0, JSON.stringify(result.errors));
    });
    after(async () => {
      await t?.close();
      if (adapter.cleanup) await adapter.cleanup(overrides.elasticsearchIndex as string);
    });

    const listIds = async (groups: string[]) => {
      const r = await client(t.baseUrl, viewer.apiKey).get(`/insurance/filings?${groups.map((g) => `group=${g}`).join('&')}&limit=200`);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.filings.map((f: { id: string }) => f.id).sort();
    };
    const searchIds = async (filter: object, query = 'windstorm') => {
      const r = await client(t.baseUrl, viewer.apiKey).post('/insurance/filings/search', { query, intent: 'find filings for competitive research', dataScope: 'all', limit: 200, filters: [filter] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      return r.body.filings.map((f: { id: string }) => f.id).sort();
    };
    const ids = (...fs: Record<string, unknown>[]) => fs.map((f) => f.id as string).sort();

    it('rule: groupId eq selects exactly the list\'s group= filings: by the group\'s NAIC code or a member\'s current company code, not the filing\'s own groupId', async () => {
      const expected = ids(F.byAll, F.byGroupCodeOnly, F.byMemberCodeOnly, F.byCoFiler);
      assert.deepEqual(await listIds(['carrier_group_700']), expected);
      assert.deepEqual(await searchIds({ field: 'groupId', operator: 'eq', value: 'carrier_group_700' }), expected);
    });

    it('rule: groupId in combines groups with OR, as repeated group= does', async () => {
      const expected = ids(F.byAll, F.byGroupCodeOnly, F.byMemberCodeOnly, F.byCoFiler, F.byOtherGroup);
      assert.deepEqual(await listIds(['carrier_group_700', 'carrier_group_121']), expected);
      assert.deepEqual(await searchIds({ field: 'groupId', operator: 'in', value: ['carrier_group_700', 'carrier_group_121'] }), expected);
    });

    it('rule: a groupId filter selects the same filings when filters alone select (a query of stop words only)', async () => {
      assert.deepEqual(await searchIds({ field: 'groupId', operator: 'eq', value: 'carrier_group_700' }, 'the'), await listIds(['carrier_group_700']));
    });

    if (adapter.cleanup) {
      it('rule: an Elasticsearch index of the former schema (101, no naicGroupCode) is rebuilt on start into a new physical index behind the alias', async () => {
        const alias = overrides.elasticsearchIndex as string;
        const es = new Client({ node: url! });
        try {
          const before = Object.keys(await es.indices.getAlias({ name: alias }));
          // What a database indexed by the former adapter records: projector version 1 + 101.
          await t.rt.db.knex('projection_checkpoints').where({ name: SEARCH_PROJECTION }).update({ version: 1 + 101 });
          await t.rt.engine.ensureSchemas();
          const after = Object.keys(await es.indices.getAlias({ name: alias }));
          assert.equal(after.length, 1);
          assert.notDeepEqual(after, before);
          const mapping = await es.indices.getMapping({ index: after[0] });
          assert.ok(mapping[after[0]].mappings.properties?.naicGroupCode, 'the rebuilt index maps naicGroupCode');
          assert.deepEqual(await searchIds({ field: 'groupId', operator: 'eq', value: 'carrier_group_700' }), await listIds(['carrier_group_700']));
        } finally {
          await es.close();
        }
      });
    }
  });
}
