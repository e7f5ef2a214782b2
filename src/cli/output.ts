/** The CLI contract: exactly one JSON object on stdout for a result; reasons and progress on stderr. */
export function printResult(obj: unknown): void {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

export function fail(message: string): never {
  process.stderr.write(`ifrs: ${message.split('\n')[0]}\n`);
  process.exit(1);
}
