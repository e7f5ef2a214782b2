import assert from 'node:assert/strict';
import pg from 'pg';
import { abortedByServer } from '../../../infra/postgres/pg-errors';

const dbError = (code: string) => Object.assign(new pg.DatabaseError('failed', 0, 'error'), { code });

describe('import batches: which failures run the batch again', () => {
  it('rule: a deadlock or serialization failure (the server rolled the whole transaction back) is retried', () => {
    for (const code of ['40P01', '40001']) assert.equal(abortedByServer(dbError(code)), true, code);
  });

  it('rule: other failures are not retried (a refused value, a lost connection that may have followed the commit)', () => {
    for (const code of ['22P02', '23505', '08006', '57P01']) assert.equal(abortedByServer(dbError(code)), false, code);
    assert.equal(abortedByServer(new Error('Connection terminated unexpectedly')), false);
    assert.equal(abortedByServer(null), false);
  });
});
