/** The CLI contract: exactly one JSON object on stdout for a result; reasons and progress on stderr. */
export function printResult(obj: unknown): void {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

/** Exit status of a command that could not run as asked: a bad flag or setting (before anything started). */
export const USAGE_EXIT = 2;

export function fail(message: string, exitCode = 1): never {
  process.stderr.write(`ifrs: ${message.split('\n')[0]}\n`);
  process.exit(exitCode);
}
