import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runImport } from '../../src/cli/import/import-cli';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime } from '../../src/runtime';
import type { BenchScenario } from '../types';
import { BULK_NODE_FLAGS } from '../../src/util/bulk-node-flags';
import { runStandalone } from '../support/standalone';
import { writeGeneratedCatalog } from '../catalog-generator';
import { SEARCH_PROJECTION } from '../../src/read-models/search';

/**
 * `ifrs import --wait` throughput: generated catalog filings (one file with three text pages each),
 * appended and projected, on an embedded Postgres in a fresh data directory (or DATABASE_URL).
 */
export const scenario: BenchScenario = {
  name: 'catalog-import',
  // As `ifrs import` runs (src/cli/relaunch.ts).
  nodeFlags: BULK_NODE_FLAGS,
  async run(ctx) {
    // BENCH_IMPORT_FILINGS sizes a longer run (say 1,000,000) without changing the quick and full defaults.
    const n = Number(process.env.BENCH_IMPORT_FILINGS) || (ctx.quick ? 2000 : 20000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-bench-import-'));
    fs.chmodSync(dir, 0o755); // the embedded Postgres may run as another user and must reach its data directory
    const file = path.join(dir, 'catalog.jsonl');
    const bare = path.join(dir, 'catalog-no-text.jsonl');
    await writeGeneratedCatalog(file, n);
    // The same filings without file text: what the append and projection path does without blob writes.
    await writeGeneratedCatalog(bare, n, { seed: 7, pages: 0 });
    const rt = await openRuntime(loadConfig(process.env, { dataDir: path.join(dir, 'data') }), createLogger('warn'), { poolMax: 10 });
    try {
      // The catalog-side projections run WHILE the import appends, as `ifrs import --wait` does, so
      // the read side catches up on the other core; the search index follows on its own, since it
      // has its own goal (and --wait's engine would interleave it with these).
      const started = Date.now();
      const catalogSide = rt.engine.projectors.map((p) => p.name).filter((n) => n !== SEARCH_PROJECTION);
      let importing = true;
      const projecting = (async () => {
        while (importing) if (!(await rt.engine.catchUp(catalogSide))) await new Promise((res) => setTimeout(res, 20));
      })();
      let r: Awaited<ReturnType<typeof runImport>>;
      try {
        r = await runImport(rt, file, { wait: false });
      } finally {
        importing = false;
        await projecting;
      }
      const appended = (Date.now() - started) / 1000;
      await rt.engine.catchUp(catalogSide);
      const projected = (Date.now() - started) / 1000;
      const first = { scenario: 'catalog-import', metric: 'import + catalog, directory and file projections', value: Math.round(r.imported / projected), unit: 'filings/s', goal: '>= 4000', note: `${n} filings with 3 text pages each, projected while appending (as import --wait); appends done after ${appended.toFixed(2)} s` };
      // BENCH_IMPORT_CATALOG_ONLY=1 stops here: at 1,000,000 filings the search indexing of 3 M pages and
      // the two re-imports would add half an hour to a run that is about the import goal.
      if (process.env.BENCH_IMPORT_CATALOG_ONLY === '1') return [first];
      const searchStart = Date.now();
      await rt.engine.catchUp([SEARCH_PROJECTION]);
      const searchSeconds = (Date.now() - searchStart) / 1000;
      const pages = r.imported * 3;
      ctx.log(`imported ${r.imported}, failed ${r.failed}: appended in ${appended.toFixed(2)} s, projected in ${projected.toFixed(2)} s, search-indexed in ${searchSeconds.toFixed(2)} s`);
      const again = Date.now();
      await runImport(rt, file, { wait: true });
      const reSeconds = (Date.now() - again) / 1000;
      const bareStart = Date.now();
      const b = await runImport(rt, bare, { wait: true });
      const bareSeconds = (Date.now() - bareStart) / 1000;
      return [
        first,
        { scenario: 'catalog-import', metric: 'search indexing of those pages', value: Math.round(pages / searchSeconds), unit: 'pages/s', goal: '>= 1000' },
        { scenario: 'catalog-import', metric: 'import including search indexing', value: Math.round(r.imported / (projected + searchSeconds)), unit: 'filings/s' },
        { scenario: 'catalog-import', metric: 'unchanged re-import', value: Math.round(r.imported / reSeconds), unit: 'filings/s' },
        { scenario: 'catalog-import', metric: 'filings without file text, all projections', value: Math.round(b.imported / bareSeconds), unit: 'filings/s', goal: '>= 4000' },
      ];
    } finally {
      await rt.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};

if (require.main === module) runStandalone(scenario);
