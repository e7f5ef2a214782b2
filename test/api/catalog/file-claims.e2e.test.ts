import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { catalogFiling, file, importRecords } from '../../support/catalog-records';
import { client, makeCaller, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { FILES_PROJECTION } from '../../../src/read-models/files';
import { SEARCH_PROJECTION } from '../../../src/read-models/search';

type Rec = Record<string, any>;
const filingRecord = (o: Rec): Rec => catalogFiling(o);

/**
 * OPERATIONS.md: `catalog_filing` records carry `files: [{fileId, ...}]`, and the contract addresses a
 * stored file by its id alone (`/files/{fileId}/text`, `/download`, the filing's inventory). A second
 * filing naming a file id another filing holds is a bad line: importing it silently took the file away
 * from the first filing (its inventory came back empty, the text served was the second one's).
 */
describe('catalog import: a file id belongs to one catalog filing', () => {
  let t: TestRuntime;
  let caller: TestCaller;
  const api = () => client(t.baseUrl, caller.apiKey);
  const withText = (fileId: string, text: string, o: Rec = {}) => file({ fileId, text: { pages: [text] }, ...o });
  const inventory = async (filingId: string) => {
    const r = await api().get(`/filings/${filingId}/files`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const short = await api().get(`/insurance/filings/${filingId}/files`);
    assert.deepEqual(short.body, r.body, 'both path forms serve the same inventory');
    return r.body.files.map((f: Rec) => [f.fileId, f.name]);
  };
  const textOf = async (fileId: string) => {
    const r = await api().get(`/files/${fileId}/text`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    return r.body.text as string;
  };
  const eventsOf = async (filingId: string) => (await t.rt.store.readStream(`catalogFiling-${filingId}`)).map((e) => e.type);

  before(async () => {
    t = await startTestRuntime();
    caller = await makeCaller(t.rt);
  });
  after(async () => t.close());

  it('rule: a second filing naming a file id of another filing in the same import file is a bad line; the first keeps its file and text, the rest imports', async () => {
    const fileId = crypto.randomUUID();
    const a = filingRecord({ files: [withText(fileId, 'alpha text')] });
    const b = filingRecord({ files: [withText(crypto.randomUUID(), 'b own file'), withText(fileId, 'beta text')] });
    const c = filingRecord({ files: [withText(crypto.randomUUID(), 'gamma text')] });
    const r = await importRecords(t.rt, [a, b, c]);
    assert.deepEqual(r, { imported: 2, failed: 1, errors: [{ line: 2, message: `file ${fileId} already belongs to catalog filing ${a.id}` }] });
    assert.deepEqual(await inventory(a.id), [[fileId, 'form.pdf']]);
    assert.equal(await textOf(fileId), 'alpha text');
    assert.equal((await api().get(`/filings/${b.id}/files`)).status, 404, 'the refused filing was not imported at all');
    assert.deepEqual(await eventsOf(b.id), []);
    assert.equal((await inventory(c.id)).length, 1);
  });

  it('rule: a file id claimed in an earlier import cannot be listed by another filing later; the other lines of that import still import', async () => {
    const fileId = crypto.randomUUID();
    const a = filingRecord({ files: [withText(fileId, 'first owner')] });
    assert.equal((await importRecords(t.rt, [a])).failed, 0);
    const other = filingRecord({ files: [withText(crypto.randomUUID(), 'unrelated')] });
    const b = filingRecord({ files: [withText(fileId, 'second claimant')] });
    const r = await importRecords(t.rt, [other, b]);
    assert.deepEqual(r, { imported: 1, failed: 1, errors: [{ line: 2, message: `file ${fileId} already belongs to catalog filing ${a.id}` }] });
    assert.deepEqual(await inventory(a.id), [[fileId, 'form.pdf']]);
    assert.equal(await textOf(fileId), 'first owner');
    // Nor can a filing that already exists take it by a re-import.
    const grown = { ...other, files: [...other.files, withText(fileId, 'taken by an update')] };
    const again = await importRecords(t.rt, [grown]);
    assert.equal(again.failed, 1);
    assert.match(again.errors[0].message, new RegExp(`file ${fileId} already belongs to catalog filing ${a.id}`));
    assert.deepEqual(await eventsOf(other.id), ['CatalogFilingImported'], 'the refused update appended nothing');
    assert.equal(await textOf(fileId), 'first owner');
  });

  it('rule: re-importing the same filing works as before: unchanged appends nothing; a file added, renamed or removed appends an update', async () => {
    const [f1, f2, f3] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
    const a = filingRecord({ files: [withText(f1, 'one'), withText(f2, 'two')] });
    assert.equal((await importRecords(t.rt, [a])).failed, 0);
    assert.deepEqual(await importRecords(t.rt, [a]), { imported: 1, failed: 0, errors: [] });
    assert.deepEqual(await eventsOf(a.id), ['CatalogFilingImported'], 'unchanged: no new event');
    const added = { ...a, files: [...a.files, withText(f3, 'three')] };
    assert.deepEqual(await importRecords(t.rt, [added]), { imported: 1, failed: 0, errors: [] });
    const renamed = { ...added, files: added.files.map((f: Rec) => (f.fileId === f1 ? { ...f, name: 'renamed.pdf' } : f)) };
    assert.deepEqual(await importRecords(t.rt, [renamed]), { imported: 1, failed: 0, errors: [] });
    const removed = { ...renamed, files: renamed.files.filter((f: Rec) => f.fileId !== f2) };
    assert.deepEqual(await importRecords(t.rt, [removed]), { imported: 1, failed: 0, errors: [] });
    assert.deepEqual(await eventsOf(a.id), ['CatalogFilingImported', 'CatalogFilingUpdated', 'CatalogFilingUpdated', 'CatalogFilingUpdated']);
    assert.deepEqual(await inventory(a.id), [[f1, 'renamed.pdf'], [f3, 'form.pdf']]);
    // The same record twice in one file: the second is unchanged.
    assert.deepEqual(await importRecords(t.rt, [removed, removed]), { imported: 2, failed: 0, errors: [] });
    assert.equal((await eventsOf(a.id)).length, 4);
  });

  it('rule: a file id once claimed by a filing stays its own: removed from the filing, another filing still cannot list it, the first may list it again', async () => {
    const fileId = crypto.randomUUID();
    const keep = crypto.randomUUID();
    const a = filingRecord({ files: [withText(fileId, 'old text'), withText(keep, 'kept')] });
    assert.equal((await importRecords(t.rt, [a])).failed, 0);
    const without = { ...a, files: a.files.filter((f: Rec) => f.fileId === keep) };
    assert.equal((await importRecords(t.rt, [without])).failed, 0);
    assert.deepEqual(await inventory(a.id), [[keep, 'form.pdf']]);
    const b = filingRecord({ files: [withText(fileId, 'new owner?')] });
    const r = await importRecords(t.rt, [b]);
    assert.deepEqual(r.errors, [{ line: 1, message: `file ${fileId} already belongs to catalog filing ${a.id}` }]);
    assert.equal((await api().get(`/files/${fileId}/text`)).status, 404, 'a removed file is served by nobody');
    assert.deepEqual(await importRecords(t.rt, [a]), { imported: 1, failed: 0, errors: [] });
    assert.deepEqual(await inventory(a.id), [[fileId, 'form.pdf'], [keep, 'form.pdf']]);
    assert.equal(await textOf(fileId), 'old text');
  });

  it('rule: the claims are the write side, kept with the event log: a projections rebuild leaves them in force and agrees with them', async () => {
    const fileId = crypto.randomUUID();
    const a = filingRecord({ files: [withText(fileId, 'before the rebuild')] });
    assert.equal((await importRecords(t.rt, [a])).failed, 0);
    await t.rt.engine.rebuild([FILES_PROJECTION, SEARCH_PROJECTION, 'catalog']);
    assert.deepEqual(await inventory(a.id), [[fileId, 'form.pdf']]);
    const b = filingRecord({ files: [withText(fileId, 'after the rebuild')] });
    const r = await importRecords(t.rt, [b]);
    assert.deepEqual(r.errors, [{ line: 1, message: `file ${fileId} already belongs to catalog filing ${a.id}` }]);
    assert.equal(await textOf(fileId), 'before the rebuild');
  });
});
