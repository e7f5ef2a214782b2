import assert from 'node:assert/strict';
import { sharedBuffersMb } from '../../../infra/postgres/embedded';

describe('embedded Postgres: shared_buffers by machine', () => {
  const GB = 1024 ** 3;

  it('an eighth of the RAM, so a million-filing import keeps its hot index pages in the pool', () => {
    assert.equal(sharedBuffersMb(8 * GB), 1024);
    assert.equal(sharedBuffersMb(12 * GB), 1536);
  });

  it('never above 2 GB (the OS page cache serves the rest) nor below the former fixed 256 MB', () => {
    assert.equal(sharedBuffersMb(23 * GB), 2048);
    assert.equal(sharedBuffersMb(256 * GB), 2048);
    assert.equal(sharedBuffersMb(1 * GB), 256);
  });
});
