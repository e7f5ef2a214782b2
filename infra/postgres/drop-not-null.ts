import type { Knex } from 'knex';
import { ident } from './sql-ident';

/**
 * Drops NOT NULL from `table.column` if the column has it (a read model's Projector.upgradeSchema). Postgres
 * only changes its catalog for that: no table rewrite, no scan, no index rebuild. The ALTER still takes an
 * ACCESS EXCLUSIVE lock, briefly, so it runs only while the column has the constraint: once nullable, a start
 * reads the catalog and locks nothing. No-op for a table that does not exist.
 */
export async function dropNotNull(trx: Knex.Transaction, table: string, column: string): Promise<void> {
  const res = await trx.raw(`select attnotnull from pg_attribute where attrelid = to_regclass(?) and attname = ? and not attisdropped`, [ident(table), column]);
  if ((res.rows as { attnotnull: boolean }[])[0]?.attnotnull) await trx.raw(`alter table ${ident(table)} alter column ${ident(column)} drop not null`);
}
