import assert from 'node:assert/strict';
import pg from 'pg';
import { socketDirFor } from '../../../infra/postgres/embedded';
import { freshDatabaseUrl } from '../../support/postgres';

describe('embedded Postgres: local clients use its Unix socket', () => {
  it('rule: the socket lives in the cluster directory, unless its path would not fit a socket address or needs quoting', () => {
    assert.equal(socketDirFor('/var/lib/ifrs/pg'), '/var/lib/ifrs/pg');
    assert.equal(socketDirFor(`/${'d'.repeat(100)}/pg`), null);
    assert.equal(socketDirFor('/srv/my data/pg'), null);
    assert.equal(socketDirFor('/srv/a,b/pg'), null);
  });

  it('rule: a connection made from the embedded connection string arrives over the socket, not TCP', async function () {
    if (process.env.TEST_DATABASE_URL) this.skip(); // an external server: its transport is the operator's choice
    const url = await freshDatabaseUrl();
    assert.match(new URL(url).hostname, /^%2F/i);
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const { rows } = await c.query<{ local: boolean }>('select inet_client_addr() is null as local');
      assert.equal(rows[0].local, true);
    } finally {
      await c.end();
    }
  });
});
