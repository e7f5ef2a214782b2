import net from 'node:net';
import type pg from 'pg';
import { currentStatementScope } from '../../src/util/statement-scope';

/** What a pg connection knows about its server session (set by pg when it connects). */
interface Session {
  processID: number | null;
  secretKey: number | null;
  host?: string;
  port?: number;
}

/** Connections one of whose statements was cancelled: they go back to the pool but are not lent again. */
const spent = new WeakSet<object>();

export const isSpent = (conn: object): boolean => spent.has(conn);

/**
 * Sends the protocol's CancelRequest for the statement `conn` is running, on a connection of its own, so a
 * cancel needs no pool slot (pg_cancel_backend would wait for one when the pool is what is exhausted).
 */
function sendCancel(conn: pg.Client): void {
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

/**
 * Bounds every statement `conn` runs for a request (src/util/statement-scope.ts): cancelled after the
 * scope's timeout, and at once when the request's client goes away. Statements outside a request's scope
 * (projectors, imports, rebuilds, migrations) are untouched. The cancelled statement fails with 57014,
 * which the HTTP layer answers as 503 temporarily_unavailable.
 */
export function guardStatements(conn: pg.Client): void {
  const query = conn.query as (...args: unknown[]) => unknown;
  (conn as unknown as { query: (...args: unknown[]) => unknown }).query = function guardedQuery(this: pg.Client, ...args: unknown[]): unknown {
    const scope = currentStatementScope();
    if (!scope) return query.apply(this, args);
    const last = args[args.length - 1];
    // The client left before this statement: it is not sent at all (as if cancelled at once).
    if (scope.signal.aborted && typeof (args[0] as { submit?: unknown } | undefined)?.submit !== 'function') {
      const error = Object.assign(new Error('canceling statement: the client went away'), { code: '57014' });
      if (typeof last === 'function') {
        process.nextTick(() => (last as (e: Error) => void)(error));
        return undefined;
      }
      return Promise.reject(error);
    }
    let done = false;
    let timer: NodeJS.Timeout | undefined;
    const cancel = () => {
      if (done) return;
      done = true;
      spent.add(conn);
      sendCancel(conn);
    };
    const finish = () => {
      done = true;
      if (timer) clearTimeout(timer);
      scope.signal.removeEventListener('abort', cancel);
    };
    if (scope.timeoutMs > 0) timer = setTimeout(cancel, scope.timeoutMs);
    scope.signal.addEventListener('abort', cancel, { once: true });
    if (typeof last === 'function') {
      args[args.length - 1] = function (this: unknown, ...r: unknown[]) {
        finish();
        return (last as (...a: unknown[]) => unknown).apply(this, r);
      };
      return query.apply(this, args);
    }
    const first = args[0] as { submit?: unknown; once?: (e: string, f: () => void) => void } | undefined;
    if (first && typeof first.submit === 'function' && typeof first.once === 'function') {
      first.once('end', finish);
      first.once('error', finish);
      return query.apply(this, args);
    }
    const result = query.apply(this, args) as Promise<unknown> | undefined;
    if (result && typeof result.then === 'function') return result.finally(finish);
    finish();
    return result;
  };
}
