import knexFactory from 'knex';
import { PostgresSearchIndex } from '../../../infra/search/postgres-search-index';
import { searchIndexContract } from '../../contracts/search-index.contract';
import { freshDatabaseUrl } from '../../support/postgres';

searchIndexContract('PostgresSearchIndex', async () => {
  const knex = knexFactory({ client: 'pg', connection: await freshDatabaseUrl(), pool: { min: 0, max: 4 } });
  const index = new PostgresSearchIndex(knex);
  const t = (n: string) => n;
  await knex.transaction((trx) => index.createSchema(trx, t));
  return {
    index,
    write: (filings) => knex.transaction((trx) => index.upsert({ trx, table: t }, filings)),
    remove: (ids) => knex.transaction((trx) => index.remove({ trx, table: t }, ids)),
    close: () => knex.destroy(),
  };
});
