import fs from 'node:fs';
import type { Command } from 'commander';
import type { CliExtension } from '../cli-extension';
import { withRuntime } from '../with-runtime';
import { wholeNumber } from '../numbers';
import { startProgress } from '../progress';
import type { LogPosition } from '../../domain/events';
import type { Runtime } from '../../runtime';
import { TOKENS } from '../../ports/tokens';
import { DEFAULT_IMPORT_CONCURRENCY, importFile, type ImportResult } from '../../../commands/import/import-file';
import type { RecordImporter } from '../../../commands/import/record-importer';

const WAIT_TIMEOUT_MS = 30 * 60 * 1000;

/** Runs an import against a runtime; with `wait`, returns once the read side has caught up with it. */
export async function runImport(rt: Runtime, file: string, opts: { wait: boolean; concurrency?: number; progress?: boolean }): Promise<ImportResult> {
  if (!fs.existsSync(file)) throw new Error(`no such file: ${file}`);
  const importers = rt.container.getAll<RecordImporter>(TOKENS.RecordImporter, { optional: true });
  const bar = opts.progress ? startProgress('import', 'bytes', fs.statSync(file).size) : null;
  bar?.update(0);
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
    await waitShowingProgress(rt, names, await rt.store.lastCommitted(), !!opts.progress);
  }
  return result;
}

/**
 * The --wait catch-up, with a bar of the slowest projection's position towards the import's last event
 * (read from the checkpoints once a second, so it also moves while a running server does the projecting).
 */
async function waitShowingProgress(rt: Runtime, names: string[], target: LogPosition, progress: boolean): Promise<void> {
  const bar = progress ? startProgress('catch-up', 'events', Number(target.prepare)) : null;
  if (!bar) return rt.engine.waitFor(names, target, WAIT_TIMEOUT_MS);
  let polling = false;
  const poll = setInterval(() => {
    if (polling) return;
    polling = true;
    rt.engine
      .status()
      .then((s) => bar.update(Math.min(...s.projections.filter((p) => names.includes(p.name)).map((p) => p.position))))
      .catch(() => undefined) // a missed frame; the wait itself reports real failures
      .finally(() => (polling = false));
  }, 1000);
  try {
    await rt.engine.waitFor(names, target, WAIT_TIMEOUT_MS);
    bar.update(Number(target.prepare));
  } finally {
    clearInterval(poll);
    bar.stop();
  }
}

export const importCommand: CliExtension = (program: Command) => {
  program
    .command('import')
    .description('import JSON Lines records (carriers, groups, MGAs, products, catalog filings, scope records, ...)')
    .argument('<file>', 'a .jsonl file; content paths of files are relative to it')
    .option('--wait', 'return only when every projection has caught up with the import', false)
    .option('--concurrency <n>', 'records in flight at once', wholeNumber(1, 100_000), DEFAULT_IMPORT_CONCURRENCY)
    .action(async (file: string, o: { wait: boolean; concurrency: number }, cmd: Command) => {
      await withRuntime(cmd, (rt) => runImport(rt, file, { wait: o.wait, concurrency: o.concurrency, progress: !!process.stderr.isTTY }));
    });
};
