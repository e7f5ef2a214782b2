import fs from 'node:fs';
import type { Command } from 'commander';
import cliProgress from 'cli-progress';
import type { CliExtension } from '../../src/cli/extensions';
import { flagParser } from '../../src/cli/flags';
import { z } from 'zod';
import type { Runtime } from '../../src/runtime';
import { TOKENS } from '../../src/tokens';
import { DEFAULT_IMPORT_CONCURRENCY, importFile, type ImportResult } from './import-file';
import type { RecordImporter } from './record-importer';

const WAIT_TIMEOUT_MS = 30 * 60 * 1000;

/** Runs an import against a runtime; with `wait`, returns once the read side has caught up with it. */
export async function runImport(rt: Runtime, file: string, opts: { wait: boolean; concurrency?: number; progress?: boolean }): Promise<ImportResult> {
  if (!fs.existsSync(file)) throw new Error(`no such file: ${file}`);
  const importers = rt.container.isBound(TOKENS.RecordImporter) ? rt.container.getAll<RecordImporter>(TOKENS.RecordImporter) : [];
  const bar = opts.progress
    ? new cliProgress.SingleBar({ format: 'import [{bar}] {percentage}% {value}/{total} bytes', stream: process.stderr }, cliProgress.Presets.shades_classic)
    : null;
  bar?.start(fs.statSync(file).size, 0);
  // With --wait, project while importing rather than after: the read side catches up on the other
  // core instead of adding its time at the end. Competing with a running `ifrs serve` is safe (the
  // engine locks checkpoints); the runtime's close stops this runner.
  if (opts.wait) await rt.engine.start();
  let r: Awaited<ReturnType<typeof importFile>>;
  try {
    r = await importFile(file, { importers, concurrency: opts.concurrency, onProgress: (b) => bar?.update(b) });
  } finally {
    bar?.stop();
  }
  const { usedTypes, ...result } = r;
  if (opts.wait) {
    // Every projection, not only those the importers name: the search index and any other reader of
    // these events must have caught up too (OPERATIONS.md). Unrelated projections just move their checkpoints.
    const named = importers.filter((i) => i.types.some((t) => usedTypes.includes(t))).flatMap((i) => [...i.projections]);
    const names = [...new Set([...named, ...rt.engine.projectors.map((p) => p.name)])];
    // lastCommitted, not head: the visible head can still be behind this import's own appends.
    await rt.engine.waitFor(names, await rt.store.lastCommitted(), WAIT_TIMEOUT_MS);
  }
  return result;
}

export const importCommand: CliExtension = (program: Command) => {
  program
    .command('import')
    .description('import JSON Lines records (carriers, groups, MGAs, products, catalog filings, scope records, ...)')
    .argument('<file>', 'a .jsonl file; content paths of files are relative to it')
    .option('--wait', 'return only when every projection has caught up with the import', false)
    .option('--concurrency <n>', 'records in flight at once', flagParser('--concurrency', 'an integer 1-10000', z.string().regex(/^\d+$/).transform(Number).pipe(z.number().int().min(1).max(10_000))), DEFAULT_IMPORT_CONCURRENCY)
    .action(async (file: string, o: { wait: boolean; concurrency: number }, cmd: Command) => {
      // Loaded here, not at the top: src/cli/main imports the extension list that imports this module.
      const { withRuntime } = require('../../src/cli/main') as { withRuntime: (cmd: Command, fn: (rt: Runtime) => Promise<unknown>) => Promise<void> };
      await withRuntime(cmd, (rt) => runImport(rt, file, { wait: o.wait, concurrency: o.concurrency, progress: !!process.stderr.isTTY }));
    });
};
