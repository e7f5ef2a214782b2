import assert from 'node:assert/strict';
import pg from 'pg';
import { rolledBack } from '../../../infra/postgres/pg-errors';

const dbError = (code: string) => Object.assign(new pg.DatabaseError('failed', 0, 'error'), { code });

describe('append batches: which failures are retried one by one', () => {
  it('rule: a statement error (the batch certainly rolled back) is retried append by append', () => {
    for (const code of ['22P05', '40P01', '23505', '22P02']) assert.equal(rolledBack(dbError(code)), true, code);
  });

  it('rule: a lost connection or a server going away may have followed the commit: never made twice', () => {
    for (const code of ['08006', '08003', '57P01', '57P02']) assert.equal(rolledBack(dbError(code)), false, code);
    assert.equal(rolledBack(new Error('Connection terminated unexpectedly')), false);
    assert.equal(rolledBack(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })), false);
  });
});
