import type { Knex } from 'knex';
import type pg from 'pg';

interface ConnectionSource {
  acquireConnection(): Promise<pg.ClientBase>;
  releaseConnection(c: pg.ClientBase): Promise<void>;
}

/**
 * Runs one statement straight on a `pg` connection of `db`: a pooled one, or the transaction's own
 * one inside a transaction (knex's transaction client hands out its connection), so statements
 * inside and outside transactions share one path. Skips knex's query building, which cost more node
 * CPU than the driver itself on the event store's hot statements. With a `name`, Postgres parses
 * and plans the statement once per connection: only for statements whose plan does not depend on
 * the parameters' values (a generic plan would be wrong for, say, a type filter of varying selectivity).
 */
export async function runStatement<R extends object>(db: Knex | Knex.Transaction, query: { name?: string; text: string; values: unknown[] }): Promise<R[]> {
  const client = db.client as ConnectionSource;
  const conn = await client.acquireConnection();
  try {
    return (await conn.query<R>(query)).rows;
  } finally {
    await client.releaseConnection(conn);
  }
}
