import type { Knex } from 'knex';
import { ident } from './sql-ident';

/**
 * Creates an index on `table` unless one with the same definition exists (a read model's Projector.upgradeSchema).
 * Found by definition, not by name: a rebuilt table keeps the names its shadow's indexes were created with.
 * `definition` is written as pg_get_indexdef writes it after USING (`btree (state DESC NULLS LAST, id)`), so the
 * check matches what it creates. A plain CREATE INDEX (inside the start's transaction, so not CONCURRENTLY): it
 * blocks writes to the table while it builds, once. No-op for a table that does not exist.
 */
export async function createMissingIndex(trx: Knex.Transaction, table: string, definition: string): Promise<void> {
  const res = await trx.raw(`select pg_get_indexdef(indexrelid) as def from pg_index where indrelid = to_regclass(?)`, [ident(table)]);
  const defs = (res.rows as { def: string }[]).map((r) => r.def);
  const exists = defs.length > 0 || (await trx.raw(`select to_regclass(?) is not null as e`, [ident(table)])).rows[0].e === true;
  if (exists && !defs.some((d) => d.endsWith(` USING ${definition}`))) await trx.raw(`create index on ${ident(table)} using ${definition}`);
}
