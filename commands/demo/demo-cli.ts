import type { Command } from 'commander';
import type { CliExtension } from '../../src/cli/extensions';
import type { Runtime } from '../../src/runtime';
import { DEFAULT_FILINGS, DEFAULT_SEED, generateDemo } from '../../infra/demo/generate';
import type { seedDemo as SeedDemo } from './demo-seed';
import { fail, printResult } from '../../src/cli/output';

function count(name: string, v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got ${v}`);
  return n;
}

/** `ifrs demo seed` (the demo data set, imported) and `ifrs demo generate` (the JSONL only, for benchmarks). */
export const demoCommand: CliExtension = (program: Command) => {
  const demo = program.command('demo').description('the demo data set (also the source of benchmark data sets)');
  demo
    .command('seed')
    .description('demo tenant, scope, user, a new API key, catalog with PDF originals, directories and working filings; safe to repeat')
    .option('--filings <n>', 'catalog filings', String(DEFAULT_FILINGS))
    .option('--no-pdf', 'no PDF originals: every document carries its text (fast; for large benchmark sets)')
    .option('--seed <n>', 'generator seed', String(DEFAULT_SEED))
    .action(async (o: { filings: string; pdf: boolean; seed: string }, cmd: Command) => {
      const filings = count('--filings', o.filings);
      const seed = count('--seed', o.seed);
      // Loaded here, not at the top: src/cli/main imports the extension list that imports this module.
      const { withRuntime } = require('../../src/cli/main') as { withRuntime: (cmd: Command, fn: (rt: Runtime) => Promise<unknown>) => Promise<void> };
      // Also on demand: the seeder (documents, importer, PDFs) is heap every other command would carry.
      const { seedDemo } = require('./demo-seed') as { seedDemo: typeof SeedDemo };
      await withRuntime(cmd, (rt) => seedDemo(rt, { filings, seed, pdf: o.pdf, progress: true }));
    });
  demo
    .command('generate')
    .description('write the demo data set as an import file (DIR/demo.jsonl, PDFs under DIR/files), streaming')
    .requiredOption('--out <dir>', 'output directory')
    .option('--filings <n>', 'catalog filings', String(DEFAULT_FILINGS))
    .option('--no-pdf', 'no PDF originals: every document carries its text')
    .option('--scope <scope>', 'also emit scope_* and managed_filing records for this scope (mc:<uuid>)')
    .option('--seed <n>', 'generator seed', String(DEFAULT_SEED))
    .action(async (o: { out: string; filings: string; pdf: boolean; scope?: string; seed: string }) => {
      try {
        const started = Date.now();
        let last = 0;
        const r = await generateDemo({
          filings: count('--filings', o.filings),
          seed: count('--seed', o.seed),
          outDir: o.out,
          pdf: o.pdf,
          scope: o.scope,
          onProgress: (done, total) => {
            if (Date.now() - last > 2000 || done === total) {
              last = Date.now();
              process.stderr.write(`demo: generated ${done}/${total} filings\n`);
            }
          },
        });
        printResult({ ...r, seconds: Math.round((Date.now() - started) / 100) / 10 });
      } catch (e) {
        fail((e as Error).message);
      }
    });
};
