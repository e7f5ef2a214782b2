import type { Command } from 'commander';
import type { CliExtension } from '../../src/cli/extensions';
import type { Runtime } from '../../src/runtime';
import { DEFAULT_FILINGS, DEFAULT_SEED, generateDemo } from '../../infra/demo/generate';
import type { seedDemo as SeedDemo } from './demo-seed';
import { fail, printResult } from '../../src/cli/output';
import { flagParser } from '../../src/cli/flags';
import { z } from 'zod';

const COUNT = z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().max(Number.MAX_SAFE_INTEGER));
const count = (flag: string) => flagParser(flag, 'a non-negative integer', COUNT);

/** `ifrs demo seed` (the demo data set, imported) and `ifrs demo generate` (the JSONL only, for benchmarks). */
export const demoCommand: CliExtension = (program: Command) => {
  const demo = program.command('demo').description('the demo data set (also the source of benchmark data sets)');
  demo
    .command('seed')
    .description('demo tenant, scope, user, a new API key, catalog with PDF originals, directories and working filings; safe to repeat')
    .option('--filings <n>', 'catalog filings', count('--filings'), DEFAULT_FILINGS)
    .option('--no-pdf', 'no PDF originals: every document carries its text (fast; for large benchmark sets)')
    .option('--seed <n>', 'generator seed', count('--seed'), DEFAULT_SEED)
    .action(async (o: { filings: number; pdf: boolean; seed: number }, cmd: Command) => {
      const { filings, seed } = o;
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
    .option('--filings <n>', 'catalog filings', count('--filings'), DEFAULT_FILINGS)
    .option('--no-pdf', 'no PDF originals: every document carries its text')
    .option('--scope <scope>', 'also emit scope_* and managed_filing records for this scope (mc:<uuid>)')
    .option('--seed <n>', 'generator seed', count('--seed'), DEFAULT_SEED)
    .action(async (o: { out: string; filings: number; pdf: boolean; scope?: string; seed: number }) => {
      try {
        const started = Date.now();
        let last = 0;
        const r = await generateDemo({
          filings: o.filings,
          seed: o.seed,
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
