import v8 from 'node:v8';
import { operatorSetsFlag } from './operator-node-flags';

/**
 * How far V8 lets the old generation grow past what the last full collection left live, in percent.
 * V8 picks the factor itself, up to 4x on a machine with a large heap limit when collections are cheap
 * relative to the program, which a request-serving process always looks like: under a steady list load
 * the API's ~30 MB live heap sat at 120-150 MB of garbage between full collections (RSS 220-360 MB).
 * At 2x it stays near 60 MB for the same per-request CPU (a full collection of 30 MB live is ~15 ms,
 * mostly concurrent, once every few seconds at saturation).
 */
export const DEFAULT_HEAP_GROWTH_PERCENT = 100;

/**
 * Applied by `ifrs serve` before it loads anything sizeable (the flag is read at every collection, so
 * it works at run time). An operator's own `--heap-growing-percent` (node flags or NODE_OPTIONS) wins;
 * IFRS_HEAP_GROWTH_PERCENT=0 leaves V8's own choice.
 */
export function boundHeapGrowth(
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = (flags) => v8.setFlagsFromString(flags),
): number | null {
  if (operatorSetsFlag(/^--heap[-_]growing[-_]percent\b/, env, execArgv)) return null;
  const percent = env.IFRS_HEAP_GROWTH_PERCENT !== undefined ? Number(env.IFRS_HEAP_GROWTH_PERCENT) : DEFAULT_HEAP_GROWTH_PERCENT;
  if (!Number.isInteger(percent) || percent <= 0) return null;
  setFlags(`--heap-growing-percent=${percent}`);
  return percent;
}
