import assert from 'node:assert/strict';
import fs from 'node:fs';
import { servedDocument } from '../../clients/generate-openapi';
import { ARCHITECTURE_FILE, codeInventory, parseEndpointTable, renderArchitecture } from '../../scripts/endpoints';

const markdown = fs.readFileSync(ARCHITECTURE_FILE, 'utf8');
const inventory = codeInventory();
const rows = parseEndpointTable(markdown);

describe('docs/ARCHITECTURE.md: one row per endpoint (route -> handler -> read model -> projector), checked against the code', () => {
  it('rule (issue 21, docs): the endpoint and read-model tables are what the code gives (npm run docs:endpoints)', () => {
    assert.equal(markdown, renderArchitecture(markdown, inventory), 'docs/ARCHITECTURE.md is stale: run npm run docs:endpoints and fill in any TODO');
  });

  it('rule (issue 21, docs): every operation of the OpenAPI document has exactly one row, and every row names operations of the document', () => {
    const doc = servedDocument() as { paths: Record<string, Record<string, { operationId?: string }>> };
    const documented = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId!));
    const listed = rows.flatMap((r) => r.operationIds);
    assert.deepEqual([...listed].sort(), [...new Set(listed)].sort(), 'an operation is listed twice');
    assert.deepEqual([...listed].sort(), [...documented].sort());
  });

  it('rule (issue 21, docs): each row names projectors the service binds, and every table it names belongs to one of them', () => {
    const tablesOf = new Map(inventory.readModels.map((m) => [m.projector, m.tables]));
    for (const r of rows) {
      assert.doesNotMatch(`${r.hand.reads} ${r.hand.projectors}`, /TODO/, `${r.route}: fill in what it reads`);
      const projectors = r.hand.projectors === '—' ? [] : r.hand.projectors.split(',').map((p) => p.trim());
      for (const p of projectors) assert.ok(tablesOf.has(p), `${r.route}: no projector ${p}`);
      const owned = new Set(projectors.flatMap((p) => tablesOf.get(p) ?? []));
      for (const [table] of r.hand.reads.matchAll(/\b[a-z]+(?:_[a-z]+)+\b/g)) assert.ok(owned.has(table), `${r.route}: ${table} is not a table of ${projectors.join(', ') || 'no projector'}`);
    }
  });
});
