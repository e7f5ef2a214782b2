import type { Knex } from 'knex';
import { runStatement } from '../infra/postgres/prepared';
import type { SqlStatement } from './batch-sql';

/** A projector batch's statements as one multi-statement query (see runScript in infra/postgres/sql-script.ts). */
export { inlineStatement, runScript } from '../infra/postgres/sql-script';

/** The statements one after another on `db` (a transaction: they commit or roll back with it). */
export async function runStatements(db: Knex | Knex.Transaction, statements: SqlStatement[]): Promise<void> {
  for (const st of statements) await runStatement(db, st);
}
