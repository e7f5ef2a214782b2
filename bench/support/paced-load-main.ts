// Child-process entry of pacedLoadInProcess: argv[2] is the JSON of {url, opts}; prints the PacedResult as JSON.
import { pacedLoad, type PacedOptions } from './paced-load';

async function main(): Promise<void> {
  const { url, opts, warmupSeconds } = JSON.parse(process.argv[2]) as { url: string; opts: PacedOptions; warmupSeconds: number };
  // The generator's own code paths get compiled and its sockets settle before anything is counted.
  if (warmupSeconds > 0) await pacedLoad(url, { ...opts, seconds: warmupSeconds });
  const result = await pacedLoad(url, opts);
  process.stdout.write(JSON.stringify(result));
}

main().catch((e) => {
  process.stderr.write(String((e as Error).stack ?? e));
  process.exit(1);
});
