import { DEFAULT_FILINGS, DEFAULT_SEED, generateDemo } from './generate';

/**
 * npx tsx infra/demo/cli.ts --filings 2000 --out DIR [--no-pdf] [--scope mc:...] [--seed N]
 * Prints one JSON object (the result plus elapsed seconds) on stdout; progress goes to stderr.
 */
function parse(argv: string[]): { filings: number; outDir: string; pdf: boolean; scope?: string; seed: number } {
  let filings = DEFAULT_FILINGS;
  let outDir: string | undefined;
  let pdf = true;
  let scope: string | undefined;
  let seed = DEFAULT_SEED;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    switch (arg) {
      case '--filings': filings = Number(value()); break;
      case '--out': outDir = value(); break;
      case '--no-pdf': pdf = false; break;
      case '--scope': scope = value(); break;
      case '--seed': seed = Number(value()); break;
      default: throw new Error(`unknown argument ${arg}`);
    }
  }
  if (!outDir) throw new Error('--out DIR is required');
  if (!Number.isInteger(filings) || filings < 0) throw new Error('--filings must be a non-negative integer');
  if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
  return { filings, outDir, pdf, scope, seed };
}

async function main(): Promise<void> {
  const args = parse(process.argv.slice(2));
  const started = process.hrtime.bigint();
  let lastReport = 0;
  const result = await generateDemo({
    ...args,
    onProgress: (done, total) => {
      const now = Date.now();
      if (now - lastReport >= 1000 || done === total) {
        lastReport = now;
        process.stderr.write(`demo: ${done}/${total} filings\n`);
      }
    },
  });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  process.stdout.write(JSON.stringify({ ...result, seconds: Math.round(seconds * 100) / 100, maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024) }) + '\n');
}

main().catch((err: unknown) => {
  process.stderr.write(`demo: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
