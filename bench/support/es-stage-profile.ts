/**
 * Where an Elasticsearch search spends CPU, per request kind: the query mix of `search` replayed one search
 * at a time (no concurrency, so the server's CPU between a request's start and end is that request's),
 * Elasticsearch CPU from /proc/<pid>/stat and node CPU from process.cpuUsage, summed per client method.
 * Records come from a bench catalog in Postgres (as the service reads them: bench/support/es-catalog-records.ts,
 * its CPU reported as PG) unless --es-records (the filing documents' own copy).
 * Usage: ELASTICSEARCH_URL=... ES_PID=<server pid> npx tsx bench/support/es-stage-profile.ts <alias> [runs] [--passages|--both] [--per-query] [--es-records]
 */
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchSearchIndex } from '../../infra/search/elasticsearch-search-index';
import { buildSearchQuery } from '../../queries/search/search-query';
import { QUERIES } from '../scenarios/search';
import { benchCatalogFor, type BenchCatalog } from './es-catalog-records';
import { cpuMsOf, ownCpuMs } from './process-cpu';

const [alias = 'ifrs-bench-search-100000', runsArg = '5'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const runs = Number(runsArg);
const modes = process.argv.includes('--both') ? [false, true] : [process.argv.includes('--passages')];
const pid = Number(process.env.ES_PID);
const esMs = () => cpuMsOf(pid);
const nodeMs = ownCpuMs;

async function main(): Promise<void> {
  const client = new Client({ node: process.env.ELASTICSEARCH_URL! });
  const stats = new Map<string, { es: number; node: number; pg?: number; n: number }>();
  // Per query of the mix (its total over the search and passages calls): which queries dominate the tail.
  const perQuery = new Map<string, { es: number; node: number; n: number }>();
  let label = '';
  for (const method of ['search', 'msearch'] as const) {
    const orig = (client as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>)[method].bind(client);
    (client as unknown as Record<string, unknown>)[method] = async (...a: unknown[]) => {
      const e0 = esMs();
      const r = await orig(...a);
      const s = stats.get(`${label} ${method}`) ?? { es: 0, node: 0, n: 0 };
      s.es += esMs() - e0;
      s.n++;
      stats.set(`${label} ${method}`, s);
      return r;
    };
  }
  const catalog: BenchCatalog | null = process.argv.includes('--es-records') ? null : await benchCatalogFor(client, alias, console.log);
  const pgMs = () => (catalog ? catalog.cpuSeconds() * 1000 : 0);
  const index = new ElasticsearchSearchIndex(client, { alias, records: catalog?.records });
  for (const passages of modes) {
    // Postgres CPU per mode, not per search: reading it walks /proc, which would count as the search's node CPU.
    let pg0 = 0;
    for (let r = -2; r < runs; r++) {
      if (r === 0) pg0 = pgMs();
      for (const [qi, body] of QUERIES.entries()) {
        const q = buildSearchQuery({ ...body, includePassages: passages }, { canViewSerff: true }, { offset: 0 });
        const n0 = nodeMs();
        const e0 = esMs();
        label = passages ? 'P search' : 'search';
        const page = await index.search(q);
        if (passages) {
          label = 'P passages';
          const matches = page.hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId })));
          await index.passages(q, matches, 2);
        }
        if (r < 0) continue;
        const t = stats.get(passages ? 'P TOTAL' : 'TOTAL') ?? { es: 0, node: 0, pg: 0, n: 0 };
        t.es += esMs() - e0;
        t.node += nodeMs() - n0;
        t.n++;
        stats.set(passages ? 'P TOTAL' : 'TOTAL', t);
        const key = `${passages ? 'P ' : ''}#${String(qi).padStart(2)} ${body.query.slice(0, 14)}`;
        const pq = perQuery.get(key) ?? { es: 0, node: 0, n: 0 };
        pq.es += esMs() - e0;
        pq.node += nodeMs() - n0;
        pq.n++;
        perQuery.set(key, pq);
      }
      // The warm-up's requests do not count (this mode's only: the other mode's are final).
      if (r === runs - 1) stats.get(passages ? 'P TOTAL' : 'TOTAL')!.pg = pgMs() - pg0;
      if (r === -1) for (const k of [...stats.keys()]) if (!k.includes('TOTAL') && k.startsWith('P ') === passages) stats.delete(k);
    }
  }
  const searches = runs * QUERIES.length;
  for (const [k, s] of stats) console.log(`${k.padEnd(22)} calls ${String(s.n).padStart(4)}  ES ${(s.es / searches).toFixed(1).padStart(6)} ms/search${s.node ? `  node ${(s.node / searches).toFixed(1)} ms/search` : ''}${s.pg ? `  PG ${(s.pg / searches).toFixed(1)} ms/search` : ''}`);
  if (process.argv.includes('--per-query')) for (const [k, s] of perQuery) console.log(`${k.padEnd(22)} ES ${(s.es / s.n).toFixed(1).padStart(6)} ms  node ${(s.node / s.n).toFixed(1)} ms`);
  await catalog?.close();
  await client.close();
}
// The bench catalog's embedded Postgres would keep the process alive.
main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
