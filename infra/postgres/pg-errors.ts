import pg from 'pg';

/** The SQLSTATE of an error the server sent, or null (a driver or socket error). */
function sqlState(e: unknown): string | null {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof pg.DatabaseError && typeof code === 'string' ? code : null;
}

/**
 * Whether a failed query certainly committed nothing: the server answered one of its statements with
 * an error (an SQLSTATE), other than a lost connection (class 08) or the server shutting down (57P0x).
 */
export function rolledBack(e: unknown): boolean {
  const code = sqlState(e);
  return code !== null && !code.startsWith('08') && !code.startsWith('57P0');
}

/** A transaction the server aborted whole to resolve a deadlock or a serialization failure: safe to run again. */
export function abortedByServer(e: unknown): boolean {
  const code = sqlState(e);
  return code === '40P01' || code === '40001';
}
