import assert from 'node:assert/strict';
import { tiesOverlapping } from '../../infra/search/elasticsearch-search-index';
import type { SortKey } from '../../src/ports/search-index';

describe('ElasticsearchSearchIndex: which candidates need the file bonus under a metadata sort', () => {
  const byDate: SortKey[] = [{ field: 'submissionDate', direction: 'desc' }];
  const c = (id: string, submissionDate: string | null) => ({ id, fields: { submissionDate } });
  // A window already in sort order: b and c share a date, so do e, f and g.
  const window = [c('a', '2024-05-01'), c('b', '2024-04-01'), c('c', '2024-04-01'), c('d', '2024-03-01'), c('e', null), c('f', null), c('g', null)];
  const ids = (xs: { id: string }[]) => xs.map((x) => x.id);

  it('rule: only tie groups that overlap the requested page, whole (a group straddling the page edge counts)', () => {
    assert.deepEqual(ids(tiesOverlapping(window, byDate, 0, 1)), []);
    assert.deepEqual(ids(tiesOverlapping(window, byDate, 0, 2)), ['b', 'c']);
    assert.deepEqual(ids(tiesOverlapping(window, byDate, 2, 4)), ['b', 'c']);
    assert.deepEqual(ids(tiesOverlapping(window, byDate, 3, 4)), []);
    assert.deepEqual(ids(tiesOverlapping(window, byDate, 3, 50)), ['e', 'f', 'g']);
  });

  it('rule: a tie needs every sort key equal (missing values tie with each other)', () => {
    const two: SortKey[] = [...byDate, { field: 'state', direction: 'asc' }];
    const w = [
      { id: 'a', fields: { submissionDate: '2024-04-01', state: 'FL' } },
      { id: 'b', fields: { submissionDate: '2024-04-01', state: 'TX' } },
      { id: 'c', fields: { submissionDate: null, state: null } },
      { id: 'd', fields: { submissionDate: null, state: null } },
    ];
    assert.deepEqual(ids(tiesOverlapping(w, two, 0, 10)), ['c', 'd']);
  });
});
