import assert from 'node:assert/strict';
import { Client } from '@elastic/elasticsearch';
import { SEARCH_PROJECTION } from '../../../src/read-models/search';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { dropTestIndexes, testElasticsearchUrl, uniqueAlias } from '../../support/elasticsearch';
import { aFiling, aTextFile, importFiling, type ImportedFiling } from '../../support/catalog-filing-mother';

const url = testElasticsearchUrl();
if (!url) {
  console.log('Search endpoint on Elasticsearch — ELASTICSEARCH_URL not set; this e2e suite did NOT run (start it: eval "$(infra/servers/elasticsearch.sh start)")');
} else {
  describe('POST /insurance/filings/search on the Elasticsearch adapter (ELASTICSEARCH_URL)', function () {
    this.timeout(60_000);
    let t: TestRuntime;
    let viewer: TestCaller;
    let wildfire: ImportedFiling;
    const alias = uniqueAlias('ifrs-e2e');
    const es = new Client({ node: url });
    const search = (body: object) => client(t.baseUrl, viewer.apiKey).post('/insurance/filings/search', { intent: 'find filings for competitive research', ...body });

    before(async () => {
      t = await startTestRuntime({ elasticsearchUrl: url, elasticsearchIndex: alias });
      viewer = await makeCaller(t.rt);
      wildfire = await importFiling(t.rt, aFiling({ state: 'CA', submissionDate: '2024-02-01' }), [
        aTextFile(['Cover letter', 'The wildfire surcharge applies to dwellings in high hazard zones.'], { name: 'Wildfire Rule.pdf', versionId: 'v3' }),
      ]);
      await importFiling(t.rt, aFiling({ state: 'TX', submissionDate: '2023-06-01' }), [aTextFile(['Roof age schedule for hail losses.'], { name: 'Roof.pdf' })]);
      await t.rt.engine.catchUp();
    });
    after(async () => {
      await t?.close();
      await dropTestIndexes(es, alias);
      await es.close();
    });

    it('serves the endpoint unchanged: record, matches, passages with page numbers', async () => {
      const r = await search({ query: 'wildfire surcharge', includePassages: true, sort: [{ field: 'relevance', direction: 'desc' }] });
      assert.equal(r.status, 200, JSON.stringify(r.body));
      assert.deepEqual(r.body.filings.map((f: { id: string }) => f.id), [wildfire.filing.id]);
      const m = r.body.filings[0].matches[0];
      assert.equal(m.fileId, wildfire.files[0].fileId);
      assert.equal(m.versionId, 'v3');
      assert.equal(m.passages[0].pageStart, 2);
      assert.match(m.passages[0].text, /wildfire surcharge/i);
      assert.equal(r.body.exhaustive, true);
    });

    it('rule: a rebuild fills a new physical index and moves the alias; search keeps answering', async () => {
      const before = Object.keys(await es.indices.getAlias({ name: alias }));
      await t.rt.engine.rebuild([SEARCH_PROJECTION]);
      const after = Object.keys(await es.indices.getAlias({ name: alias }));
      assert.equal(after.length, 1);
      assert.notDeepEqual(after, before);
      assert.equal(await es.indices.exists({ index: before[0] }), false, 'the old physical index is deleted');
      assert.equal(await es.indices.existsAlias({ name: `${alias}__rb` }), false);
      const r = await search({ query: 'roof hail' });
      assert.equal(r.status, 200);
      assert.equal(r.body.filings.length, 1);
    });
  });
}
