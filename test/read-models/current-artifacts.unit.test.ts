import assert from 'node:assert/strict';
import type { Knex } from 'knex';
import type { ItemState } from '../../src/domain/events/managed-filings';
import { artifactIdsOf, currentArtifactsFromJson, withCurrentArtifacts, type ArtifactRef } from '../../src/read-models/working-filings/current-artifacts';
import { ReferenceLookups } from '../../src/read-models/working-filings/reference-lookups';

const ref = (id: string, n: number, name = `${id}-v${n}.txt`): ArtifactRef => ({ id, name, scopeId: 's', currentVersionId: `${id}-v${n}`, currentVersionNumber: n });

const item: ItemState = {
  id: 'i1',
  filingId: 'f1',
  artifactId: 'a',
  artifactVersionId: 'a-v1',
  scheduleType: 'form',
  scheduleSeqNo: 1,
  context: 'x',
  attachments: [
    { artifactId: 'b', artifactVersionId: 'b-v1', artifactName: 'b-v1.txt', artifactVersionNumber: 1 },
    { artifactId: 'gone', artifactVersionId: 'as-written', artifactName: 'written.txt', artifactVersionNumber: 3 },
    { artifactId: 'a', artifactVersionId: 'a-v1', artifactName: 'a-v1.txt', artifactVersionNumber: 1 },
  ],
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

describe('working filings: items follow current content (the read side\'s resolution)', () => {
  it('rule: given an item written at v1, when its artifacts are at newer versions, then it shows them (names too), in its order; an artifact not found keeps what was written', () => {
    const shown = withCurrentArtifacts(item, new Map([['a', ref('a', 3, 'renamed.txt')], ['b', ref('b', 2)]]));
    assert.equal(shown.artifactVersionId, 'a-v3');
    assert.deepEqual(shown.attachments, [
      { artifactId: 'b', artifactVersionId: 'b-v2', artifactName: 'b-v2.txt', artifactVersionNumber: 2 },
      item.attachments[1],
      { artifactId: 'a', artifactVersionId: 'a-v3', artifactName: 'renamed.txt', artifactVersionNumber: 3 },
    ]);
    assert.deepEqual({ ...shown, artifactVersionId: item.artifactVersionId, attachments: item.attachments }, item, 'nothing else changes');
    assert.deepEqual(withCurrentArtifacts(item, new Map()), item);
  });

  it('rule: an item names its own artifact, then its attachments\'', () => {
    assert.deepEqual(artifactIdsOf(item), ['a', 'b', 'gone', 'a']);
  });

  it('rule: the guard row\'s json reads back as the current artifacts by id', () => {
    const json = [{ id: 'a', name: 'a.txt', versionId: 'a-v2', versionNumber: 2 }];
    const expected = new Map([['a', { id: 'a', name: 'a.txt', currentVersionId: 'a-v2', currentVersionNumber: 2 }]]);
    assert.deepEqual(currentArtifactsFromJson(json), expected);
    assert.deepEqual(currentArtifactsFromJson(JSON.stringify(json)), expected);
    assert.deepEqual(currentArtifactsFromJson([]), new Map());
  });

  it('rule: a command decided again (last write wins) looks up only the artifact ids it has not seen, misses included', async () => {
    const asked: string[][] = [];
    const lookups = new (class extends ReferenceLookups {
      override async artifacts(_scopeId: string, ids: string[]) {
        asked.push(ids);
        return new Map(ids.filter((id) => id !== 'unknown').map((id) => [id, ref(id, 1)]));
      }
    })(null as unknown as Knex);
    const find = lookups.artifactsOnce('s');
    assert.deepEqual([...(await find(['a', 'unknown', 'a'])).keys()], ['a']);
    assert.deepEqual([...(await find(['a', 'unknown'])).keys()], ['a']);
    assert.deepEqual([...(await find(['b', 'a'])).keys()], ['b', 'a']);
    assert.deepEqual(asked, [['a', 'unknown'], ['b']]);
  });
});
