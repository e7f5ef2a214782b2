import { operatorSetsFlag } from './operator-node-flags';

/**
 * Node flags for a bulk import (`ifrs import`, and the import benchmark, which must run as the command
 * does). V8's young generation is 16 MB per semi-space by default; an import keeps ~1,000 parsed records
 * and a projector batch of up to 2,000 events alive at any moment, so about half of every scavenge
 * survived, was copied and then promoted (garbage collection was ~28% of the import's node CPU). With
 * 64 MB most of it dies young: node CPU per filing fell by ~9% at 100,000 filings (169 → 153 µs, side by
 * side). V8 sizes the young generation when the process starts, so the flag must be on the command
 * line; a long-running API keeps the default (it holds little per request, and its RSS is budgeted).
 */
export const BULK_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=64'];

/** The flags still to add: none when the operator chose a young-generation size of their own, or IFRS_BULK_NODE_FLAGS=0. */
export function bulkFlagsToAdd(env: NodeJS.ProcessEnv, execArgv: readonly string[]): string[] {
  if (env.IFRS_BULK_NODE_FLAGS === '0') return [];
  if (operatorSetsFlag(/^--(max|min)[-_]semi[-_]space[-_]size\b/, env, execArgv)) return [];
  return BULK_NODE_FLAGS.filter((f) => !execArgv.includes(f));
}
