import fs from 'node:fs';
import path from 'node:path';
import type { Client, estypes } from '@elastic/elasticsearch';
import knexFactory, { type Knex } from 'knex';
import { CatalogFilingRecords } from '../../infra/search/catalog-filing-records';
import type { FilingRecords } from '../../src/ports/filing-records';
import { benchDatabase } from './postgres';
import { postmasterCpuSeconds } from './process-cpu';

const PAGE = 5_000;

export interface BenchCatalog {
  records: FilingRecords;
  /** CPU seconds of the Postgres server (postmaster and its backends) so far. */
  cpuSeconds(): number;
  close(): Promise<void>;
}

/**
 * The records the Elasticsearch adapter reads from the catalog read model in the service, for a kept bench
 * index: a bench database with the catalog's id and list record columns (`id uuid primary key, list_record
 * text`: the access path of `catalog_filings`), filled from the index's own filing documents so they are the
 * records it was built from. 100,000 filings take ~30 s.
 */
export async function benchCatalogFor(client: Client, alias: string, log: (m: string) => void): Promise<BenchCatalog> {
  const knex: Knex = knexFactory({ client: 'pg', connection: await benchDatabase(), pool: { min: 1, max: 8 } });
  await knex.raw('create table catalog_filings (id uuid primary key, list_record text not null)');
  const started = Date.now();
  let after: estypes.SortResults | undefined;
  let n = 0;
  for (;;) {
    const res = await client.search<{ record: Record<string, unknown> }>({
      index: alias,
      size: PAGE,
      query: { term: { kind: 'filing' } },
      _source: ['record'],
      sort: [{ filingId: 'asc' }],
      ...(after ? { search_after: after } : {}),
      track_total_hits: false,
    });
    const hits = res.hits.hits;
    if (!hits.length) break;
    const rows = hits.map((h) => ({ id: h._id!, list_record: JSON.stringify(h._source!.record) }));
    await knex.raw('insert into catalog_filings select id, list_record from json_populate_recordset(null::catalog_filings, ?::json)', [JSON.stringify(rows)]);
    n += hits.length;
    after = hits[hits.length - 1].sort;
  }
  await knex.raw('vacuum analyze catalog_filings');
  log(`catalog records: ${n} filings copied to Postgres in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  const dataDir = (await knex.raw<{ rows: { setting: string }[] }>("select setting from pg_settings where name = 'data_directory'")).rows[0].setting;
  const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  return {
    records: new CatalogFilingRecords(knex),
    cpuSeconds: () => postmasterCpuSeconds(postmaster),
    close: () => knex.destroy(),
  };
}
