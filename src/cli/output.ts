import { renderTables } from './tables';

let jsonOnly = false;

/** `--json`: the one JSON object even on a terminal. */
export function setJsonOutput(on: boolean): void {
  jsonOnly = on;
}

/** Exit status of a command that could not run as asked: a bad flag or setting (before anything started). */
export const USAGE_EXIT = 2;
/**
 * The CLI contract: exactly one JSON object on stdout for a result when stdout is not a terminal (a pipe, a
 * file, a script) or `--json` is given; tables for a person at a terminal. Reasons and progress on stderr.
 */
export function printResult(obj: unknown): void {
  if (!jsonOnly && process.stdout.isTTY) process.stdout.write(renderTables(obj) + '\n');
  else process.stdout.write(JSON.stringify(obj) + '\n');
}

export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`ifrs: ${message.split('\n')[0]}\n`);
  process.exit(exitCode);
}
