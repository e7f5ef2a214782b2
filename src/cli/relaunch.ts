import { spawn } from 'node:child_process';
import os from 'node:os';
import { bulkFlagsToAdd } from '../util/bulk-node-flags';

/** Commands that run as a bulk job and start node again with BULK_NODE_FLAGS. */
const BULK_COMMANDS = new Set(['import']);

/**
 * Starts this CLI again as a child with the bulk flags when `argv` is a bulk command that lacks them, and
 * ends this process with the child's status. Returns false (nothing started) otherwise. The child shares
 * the terminal (progress bar, Ctrl-C from the terminal reaches it directly); signals sent to this process
 * alone are passed on.
 */
export function relaunchedWithBulkFlags(argv: readonly string[], script: string): boolean {
  const args = bulkRelaunchArgs(argv, script, process.env, process.execArgv);
  if (!args) return false;
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.on(signal, () => {
      // A terminal's Ctrl-C already reached the child (same process group); a second one would be a second stop request.
      if (signal !== 'SIGINT' || !process.stdin.isTTY) child.kill(signal);
    });
  }
  child.on('error', (e) => {
    process.stderr.write(`ifrs: ${e.message}\n`);
    process.exit(1);
  });
  child.on('exit', (code, signal) => process.exit(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 0) : 1)));
  return true;
}

/** The child's node arguments for a bulk command that lacks the bulk flags; null when it runs as it is. */
export function bulkRelaunchArgs(argv: readonly string[], script: string, env: NodeJS.ProcessEnv, execArgv: readonly string[]): string[] | null {
  const flags = BULK_COMMANDS.has(argv[2]) ? bulkFlagsToAdd(env, execArgv) : [];
  return flags.length ? [...execArgv, ...flags, script, ...argv.slice(2)] : null;
}
