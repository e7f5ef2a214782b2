import v8 from 'node:v8';
import { operatorSetsFlag } from './operator-node-flags';

/**
 * `ifrs serve` runs young-generation collections on the main thread alone (--no-parallel-scavenge).
 * Once requests stopped surviving their first collection (src/http/app-server.ts), a scavenge copies
 * only the few requests in flight, and handing that out to V8's helper threads costs more than it
 * saves on a two-core machine where the helpers wait for a core: under the paced GET /users/me load
 * (3,150 req/s, 16 connections) the average scavenge pause went from 1.8-2.1 ms to 0.9-1.0 ms, at the
 * same CPU per request. Full collections keep their concurrent marking.
 *
 * V8 reads the flag at every scavenge, so it works when set at run time. An operator's own
 * --parallel-scavenge, --no-parallel-scavenge or --single-threaded-gc (node flags or NODE_OPTIONS) wins;
 * IFRS_PARALLEL_SCAVENGE=1 leaves V8's own choice.
 */
export function serialScavenge(
  env: NodeJS.ProcessEnv = process.env,
  execArgv: readonly string[] = process.execArgv,
  setFlags: (flags: string) => void = (flags) => v8.setFlagsFromString(flags),
): boolean {
  if (operatorSetsFlag(/^--(no[-_])?parallel[-_]scavenge\b|^--single[-_]threaded[-_]gc\b/, env, execArgv)) return false;
  if (env.IFRS_PARALLEL_SCAVENGE === '1') return false;
  setFlags('--no-parallel-scavenge');
  return true;
}
