import type { Command } from 'commander';
import type { CliExtension } from '../cli-extension';
import { withRuntime } from '../with-runtime';
import { DEFAULT_FILINGS, DEFAULT_SEED, generateDemo } from '../../../infra/demo/generate';
import type { seedDemo as SeedDemo } from './demo-seed';
import { fail, printResult } from '../output';
import { wholeNumber } from '../numbers';
import { startProgress } from '../progress';

/**
 * Generation progress: the bar on a terminal; elsewhere (a pipe, a log) a line every two seconds and at the
 * end, as before there was a bar.
 */
function generationProgress(bar: ReturnType<typeof startProgress>): (done: number, total: number) => void {
  let last = 0;
  return (done, total) => {
    if (bar) return bar.update(done, total);
    if (Date.now() - last > 2000 || done === total) {
      last = Date.now();
      process.stderr.write(`demo: generated ${done}/${total} filings\n`);
    }
  };
}

/** `ifrs demo seed` (the demo data set, imported) and `ifrs demo generate` (the JSONL only, for benchmarks). */
export const demoCommand: CliExtension = (program: Command) => {
  const demo = program.command('demo').description('the demo data set (also the source of benchmark data sets)');
  demo
    .command('seed')
    .description('demo tenant, scope, user, a new API key, catalog with PDF originals, directories and working filings; safe to repeat')
    .option('--filings <n>', 'catalog filings', wholeNumber(0), DEFAULT_FILINGS)
    .option('--no-pdf', 'no PDF originals: every document carries its text (fast; for large benchmark sets)')
    .option('--seed <n>', 'generator seed', wholeNumber(0), DEFAULT_SEED)
    .action(async ({ filings, pdf, seed }: { filings: number; pdf: boolean; seed: number }, cmd: Command) => {
      // Also on demand: the seeder (documents, importer, PDFs) is heap every other command would carry.
      const { seedDemo } = require('./demo-seed') as { seedDemo: typeof SeedDemo };
      await withRuntime(cmd, (rt) => seedDemo(rt, { filings, seed, pdf, progress: true }));
    });
  demo
    .command('generate')
    .description('write the demo data set as an import file (DIR/demo.jsonl, PDFs under DIR/files), streaming')
    .requiredOption('--out <dir>', 'output directory')
    .option('--filings <n>', 'catalog filings', wholeNumber(0), DEFAULT_FILINGS)
    .option('--no-pdf', 'no PDF originals: every document carries its text')
    .option('--scope <scope>', 'also emit scope_* and managed_filing records for this scope (mc:<uuid>)')
    .option('--seed <n>', 'generator seed', wholeNumber(0), DEFAULT_SEED)
    .action(async (o: { out: string; filings: number; pdf: boolean; scope?: string; seed: number }) => {
      const bar = startProgress('generate', 'filings', o.filings);
      try {
        const started = Date.now();
        const r = await generateDemo({ filings: o.filings, seed: o.seed, outDir: o.out, pdf: o.pdf, scope: o.scope, onProgress: generationProgress(bar) });
        bar?.stop();
        printResult({ ...r, seconds: Math.round((Date.now() - started) / 100) / 10 });
      } catch (e) {
        bar?.stop();
        fail((e as Error).message);
      }
    });
};
