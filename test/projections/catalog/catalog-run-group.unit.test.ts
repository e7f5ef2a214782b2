import assert from 'node:assert/strict';
import { CatalogProjector } from '../../../projections/catalog/catalog-projector';
import { DirectoryProjector } from '../../../projections/directory/directory-projector';
import { FilesProjector } from '../../../projections/files/files-projector';
import { CATALOG_RUN_GROUP } from '../../../src/read-models/catalog';

describe('catalog projectors: run group', () => {
  it('rule: the catalog, files and directory read models that an import writes run as one group (one log read and one transaction per batch)', () => {
    assert.deepEqual(
      [new CatalogProjector(), new FilesProjector(), new DirectoryProjector()].map((p) => p.runGroup),
      [CATALOG_RUN_GROUP, CATALOG_RUN_GROUP, CATALOG_RUN_GROUP],
    );
  });
});
