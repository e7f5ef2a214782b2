import net from 'node:net';
import type pg from 'pg';
import { retire } from './retired-connections';

/** What a pg connection knows about its server session (set by pg when it connects). */
interface Session {
  processID: number | null;
  secretKey: number | null;
  host?: string;
  port?: number;
}

/**
 * Sends the protocol's CancelRequest for the statement `conn` is running, on a connection of its own, so a
 * cancel needs no pool slot (pg_cancel_backend would wait for one when the pool is what is exhausted).
 */
function sendCancel(conn: pg.ClientBase): void {
  const s = conn as unknown as Session;
  if (s.processID == null || s.secretKey == null) return;
  const packet = Buffer.alloc(16);
  packet.writeInt32BE(16, 0);
  packet.writeInt32BE(80877102, 4);
  packet.writeInt32BE(s.processID, 8);
  packet.writeInt32BE(s.secretKey, 12);
  const host = s.host ?? 'localhost';
  const socket = host.startsWith('/') ? net.connect(`${host}/.s.PGSQL.${s.port ?? 5432}`) : net.connect(s.port ?? 5432, host);
  socket.on('connect', () => socket.end(packet));
  // The server answers a cancel by closing; a failed cancel leaves the statement to its own end.
  socket.on('error', () => socket.destroy());
}

/** The error of a statement that was not sent because its request's client had already gone (as if cancelled at once). */
const clientGone = () => Object.assign(new Error('canceling statement: the client went away'), { code: '57014' });

/**
 * Runs `statement` on `conn` so that it is cancelled as soon as `signal` aborts (the request's client went
 * away): a statement that is still running is cancelled on the server and its connection is not lent again
 * (its backend may have grown), one not yet sent is not sent. Without a signal it simply runs.
 * The statement timeout itself is the server's (`statement_timeout` on the request pool, database.ts).
 */
export async function cancelledOnAbort<T>(conn: pg.ClientBase, signal: AbortSignal | undefined, statement: () => Promise<T>): Promise<T> {
  if (!signal) return statement();
  if (signal.aborted) throw clientGone();
  const cancel = () => {
    retire(conn);
    sendCancel(conn);
  };
  signal.addEventListener('abort', cancel, { once: true });
  try {
    return await statement();
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
