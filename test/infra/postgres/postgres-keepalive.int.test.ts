import assert from 'node:assert/strict';
import fs from 'node:fs';
import { openDatabase, POSTGRES_KEEPALIVE_MS } from '../../../infra/postgres/database';
import { createLogger } from '../../../src/util/logger';
import { freshDatabaseUrl } from '../../support/postgres';

/**
 * A pooled connection waiting for an answer from a server that ended the session while the network was cut
 * (the server's FIN was lost) has nothing left to send, so without TCP keepalive it never learns that the
 * session is gone and waits for ever: the relay and the indexer of a cut-off host stopped for good that way
 * (test/topology, "the projector host cut off the network"). With keepalive, the first probe after the idle
 * time meets the server's reset and the query fails, which the callers retry.
 *
 * Linux shows each TCP socket's timers in /proc/net/tcp: timer 2 is the keepalive timer.
 */
const procTcp = '/proc/net/tcp';

/** The socket timer of the loopback TCP connection whose local port is `port`: [timer kind, seconds until it fires]. */
function timerOf(port: number): [number, number] | null {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const line of fs.readFileSync(procTcp, 'utf8').split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6 || !f[1].endsWith(`:${hexPort}`) || f[3] !== '01') continue; // 01: ESTABLISHED
    const [kind, when] = f[5].split(':');
    return [Number.parseInt(kind, 16), Number.parseInt(when, 16) / 100]; // clock ticks (USER_HZ = 100)
  }
  return null;
}

if (fs.existsSync(procTcp)) {
  describe('Postgres connections: TCP keepalive', function () {
    it('rule: every pooled Postgres connection over TCP runs the keepalive timer, first probe after POSTGRES_KEEPALIVE_MS idle (a session the server ended during a network cut is found dead)', async () => {
      const url = new URL(await freshDatabaseUrl());
      url.host = `127.0.0.1:${url.port}`; // TCP, not the embedded server's Unix socket
      const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: url.toString(), log: createLogger('silent'), poolMax: 2, migrate: false });
      try {
        const conn = await db.knex.client.acquireConnection();
        try {
          await conn.query('select 1');
          const port = (conn as { connection: { stream: { localPort: number } } }).connection.stream.localPort;
          const timer = timerOf(port);
          assert.ok(timer, `connection from port ${port} found in ${procTcp}`);
          assert.equal(timer[0], 2, `keepalive timer on the idle connection (timer kind ${timer[0]})`);
          assert.ok(timer[1] > 0 && timer[1] <= POSTGRES_KEEPALIVE_MS / 1000, `first probe within ${POSTGRES_KEEPALIVE_MS} ms (in ${timer[1]} s)`);
        } finally {
          await db.knex.client.releaseConnection(conn);
        }
      } finally {
        await db.close();
      }
    });
  });
} else {
  console.log(`Postgres TCP keepalive — no ${procTcp} here (not Linux); this test did NOT run`);
}
