import assert from 'node:assert/strict';
import pg from 'pg';
import { SessionLock } from '../../../infra/bus/session-lock';
import { openDatabase, type Database } from '../../../infra/postgres/database';
import { createLogger } from '../../../src/util/logger';
import { freshDatabaseUrl } from '../../support/postgres';

const log = createLogger('silent');
const NAME = 'relay:test';

/**
 * The leader lock of the Kafka relay (one active relay per topic): a Postgres session advisory lock. A
 * session can end under a process that goes on running (a Postgres restart, a server that ended a silent
 * session by keepalive): the lock is gone with it, and another process may hold it by now.
 */
describe('SessionLock: the leader lock survives the end of its session only by being taken again', function () {
  let url: string;
  const dbs: Database[] = [];
  const open = async () => {
    const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: url, log, poolMax: 4, migrate: false });
    dbs.push(db);
    return db;
  };
  /** Ends every other session of the database, as a Postgres restart does. */
  const endSessions = async () => {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      await c.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
    } finally {
      await c.end();
    }
  };
  /** Backends holding the lock (0 or 1). */
  const holders = async (db: Database): Promise<number[]> => {
    const r = await db.knex.raw(`select l.pid from pg_locks l where l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.database = (select oid from pg_database where datname = current_database())`);
    return (r.rows as { pid: number }[]).map((x) => x.pid);
  };

  beforeEach(async () => {
    url = await freshDatabaseUrl();
  });
  afterEach(async () => {
    await Promise.all(dbs.splice(0).map((d) => d.close()));
  });

  it('rule: a holder whose session ended is not the leader any more when another process took the lock meanwhile (tryAcquire answers false)', async () => {
    const [a, b] = [await open(), await open()];
    const lockA = new SessionLock(a.knex, NAME);
    const lockB = new SessionLock(b.knex, NAME);
    assert.equal(await lockA.tryAcquire(), true);
    assert.equal(await lockB.tryAcquire(), false, 'one holder at a time');
    await endSessions();
    assert.equal(await lockB.tryAcquire(), true, 'the lock went with the session');
    assert.equal(await lockA.tryAcquire(), false, 'the old holder yields: two leaders would interleave the topic');
    assert.equal(lockA.held, false);
    await lockB.release();
  });

  it('rule: a holder whose session ended takes the lock again on a live session when nobody else did (the lock is really held, not assumed)', async () => {
    const a = await open();
    const lockA = new SessionLock(a.knex, NAME);
    assert.equal(await lockA.tryAcquire(), true);
    await endSessions();
    assert.equal(await lockA.tryAcquire(), true);
    const observer = await open();
    assert.equal((await holders(observer)).length, 1, 'a live session holds the lock');
    await lockA.release();
    assert.deepEqual(await holders(observer), []);
  });

  it('rule: check() says whether the lock is still held (false once its session ended)', async () => {
    const a = await open();
    const lockA = new SessionLock(a.knex, NAME);
    assert.equal(await lockA.tryAcquire(), true);
    assert.equal(await lockA.check(), true);
    await endSessions();
    assert.equal(await lockA.check(), false);
    assert.equal(lockA.held, false);
  });
});
