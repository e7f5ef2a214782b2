import { DEFAULT_SEED } from '../../../infra/demo/generate';
import { uuidFor } from '../../../infra/demo/prng';

/** The fixed identities of the demo data set: derived from the seed, so a second seed reuses them. */
export function demoIds(seed = DEFAULT_SEED) {
  const scopeId = uuidFor(seed, 'demo', 'scope');
  return { tenantId: uuidFor(seed, 'demo', 'tenant'), scopeId, scope: `mc:${scopeId}`, userId: uuidFor(seed, 'demo', 'user') };
}

/** A progress line on stderr, when progress is on. */
export const say = (on: boolean | undefined, msg: string) => {
  if (on) process.stderr.write(`demo: ${msg}\n`);
};
