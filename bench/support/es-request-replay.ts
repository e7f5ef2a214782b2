/**
 * Replays the Elasticsearch requests of the `search` mix (as the adapter sends them, with passages) one at a
 * time, many times each, and reports the server's CPU per request kind from /proc/<pid>/stat (10 ms ticks:
 * hence the repetitions) and this process's CPU for the client call; also the response size. Variants of a
 * request kind can be added below to price an idea before building it.
 * Usage: ELASTICSEARCH_URL=... ES_PID=<pid> npx tsx bench/support/es-request-replay.ts <alias> [reps] [--no-passages]
 */
import { Client } from '@elastic/elasticsearch';
import { ElasticsearchSearchIndex } from '../../infra/search/elasticsearch-search-index';
import { buildSearchQuery } from '../../queries/search/search-query';
import { QUERIES } from '../scenarios/search';
import { cpuMsOf, ownCpuMs } from './process-cpu';
import { matchedPagesRequest } from '../../infra/search/elasticsearch/matched-pages';

const [alias = 'ifrs-bench-search-100000', repsArg = '20'] = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const reps = Number(repsArg);
const passages = !process.argv.includes('--no-passages');
const pid = Number(process.env.ES_PID);
const esMs = () => cpuMsOf(pid);
const nodeMs = ownCpuMs;

type Req = Record<string, unknown>;

function kindOf(r: Req): string {
  const s = JSON.stringify(r.query ?? '');
  if (s.includes('"ids"') && !s.includes('filingId')) return 'by id';
  if (s.includes('"filingId"')) return 'pages';
  return 'rank';
}

async function main(): Promise<void> {
  const client = new Client({ node: process.env.ELASTICSEARCH_URL! });
  const captured: { q: number; kind: string; req: Req }[] = [];
  let current = -1;
  const orig = client.search.bind(client);
  (client as unknown as { search: unknown }).search = async (r: Req) => {
    captured.push({ q: current, kind: kindOf(r), req: r });
    return orig(r as never);
  };
  // The adapter without a records port sends records and pages as one _msearch: capture the pages part alone
  // (records come from the catalog read model in the service).
  const msearch = Object.getPrototypeOf(client).msearch as (r: unknown) => Promise<unknown>;
  (client as unknown as { msearch: unknown }).msearch = async (r: { searches: Req[] }) => {
    for (let i = 0; i < r.searches.length; i += 2) if (kindOf(r.searches[i + 1]) === 'pages') captured.push({ q: current, kind: 'pages', req: { index: alias, ...r.searches[i + 1] } });
    return msearch.call(client, r);
  };
  const index = new ElasticsearchSearchIndex(client, { alias });
  for (const [qi, body] of QUERIES.entries()) {
    current = qi;
    const q = buildSearchQuery({ ...body, includePassages: passages }, { canViewSerff: true }, { offset: 0 });
    const page = await index.search(q);
    if (passages) await index.passages(q, page.hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId }))), 2);
  }
  (client as unknown as { search: unknown }).search = orig;
  // Variants that price ideas: what the matched-pages search costs without reading any stored field (its listing
  // from sort values, as without passages), and a request's fixed cost (an ids query that finds nothing).
  for (const c of captured.filter((x) => x.kind === 'pages')) {
    captured.push({ q: c.q, kind: 'pages, no text', req: { index: alias, ...matchedPagesRequest(c.req.query as never) } });
    captured.push({ q: c.q, kind: 'floor', req: { index: alias, size: 1, query: { ids: { values: ['none'] } } } });
  }
  const kinds = [...new Set(captured.map((c) => c.kind))];
  for (const kind of kinds) {
    const reqs = captured.filter((c) => c.kind === kind);
    for (const c of reqs) await orig(c.req as never);
    let bytes = 0;
    const e0 = esMs();
    const n0 = nodeMs();
    for (let i = 0; i < reps; i++) {
      for (const c of reqs) {
        const res = await orig({ ...(c.req as object) } as never);
        if (i === 0) bytes += JSON.stringify(res).length;
      }
    }
    const searches = reps * QUERIES.length;
    console.log(`${kind.padEnd(15)} requests ${String(reqs.length).padStart(3)}  ES ${((esMs() - e0) / searches).toFixed(2).padStart(6)} ms/search  node ${((nodeMs() - n0) / searches).toFixed(2)} ms/search  ${(bytes / QUERIES.length / 1024).toFixed(0)} KB/search`);
  }
  await client.close();
}
main().then(() => process.exit(0), (e) => {
  console.error(e);
  process.exit(1);
});
