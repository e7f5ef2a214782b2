/**
 * Connections the pool must not lend again: it replaces them at their next loan (database.ts's `validate`).
 * A backend keeps what it grew until it ends, so retiring a connection is how its memory is given back: one
 * whose statement was cancelled (statement-cancel.ts), one holding the most prepared statements it may (prepared.ts).
 */
const retired = new WeakSet<object>();

export function retire(conn: object): void {
  retired.add(conn);
}

export const isRetired = (conn: object): boolean => retired.has(conn);
