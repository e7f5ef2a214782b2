import type { Knex } from 'knex';
import { runStatement } from '../infra/postgres/prepared';
import type { SqlStatement } from './batch-sql';

/** The statements one after another on `db` (a transaction: they commit or roll back with it). */
export async function runStatements(db: Knex | Knex.Transaction, statements: SqlStatement[]): Promise<void> {
  for (const st of statements) await runStatement(db, st);
}
