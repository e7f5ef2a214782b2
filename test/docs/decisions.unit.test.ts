import assert from 'node:assert/strict';
import fs from 'node:fs';
import { servedDocument } from '../../clients/generate-openapi';
import { DECISIONS_FILE, DECISIONS_MODULE, decisionsModule, servedDecisions, servedNotes } from '../../scripts/decisions';

const markdown = fs.readFileSync(DECISIONS_FILE, 'utf8');

describe('decisions: one file (docs/DECISIONS.md) the OpenAPI description is built from', () => {
  it('rule (issue 21, decisions in one file): src/decisions.ts is what docs/DECISIONS.md gives (npm run decisions:generate)', () => {
    assert.equal(fs.readFileSync(DECISIONS_MODULE, 'utf8'), decisionsModule(markdown), 'src/decisions.ts is stale: run npm run decisions:generate');
  });

  it('rule (issue 21, decisions in one file): the served OpenAPI description carries every decision of docs/DECISIONS.md', () => {
    const notes = servedNotes(markdown);
    assert.ok(notes.length >= 10, `only ${notes.length} notes found in the served part`);
    const doc = servedDocument() as { info: { description: string }; tags?: { description?: string }[] };
    const described = [doc.info.description, ...(doc.tags ?? []).map((t) => t.description ?? '')].join('\n');
    const missing = notes.filter((note) => !described.includes(note));
    assert.deepEqual(missing, [], 'decisions missing from the OpenAPI description');
  });

  it('rule: a `### Heading` of the served part becomes the `Heading:` line a tag section is found by; other lines stay as written', () => {
    const md = 'intro\n<!-- served: x -->\nGeneral:\n- a `b`\n\n### Area\n- c\n<!-- /served -->\n## Not served\n- d\n';
    assert.equal(servedDecisions(md), 'General:\n- a `b`\nArea:\n- c');
    assert.throws(() => servedDecisions('no markers'), /served/);
  });
});
