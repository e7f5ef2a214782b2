import assert from 'node:assert/strict';
import { serialScavenge } from '../../src/util/serial-scavenge';

describe('serve: young-generation collections on the main thread', () => {
  const run = (env: NodeJS.ProcessEnv, execArgv: string[] = []) => {
    const set: string[] = [];
    const applied = serialScavenge(env, execArgv, (f) => set.push(f));
    return { applied, set };
  };

  it('rule: serve scavenges without helper threads by default (shorter pauses on two cores once requests die young)', () => {
    assert.deepEqual(run({}), { applied: true, set: ['--no-parallel-scavenge'] });
  });

  it('rule: IFRS_PARALLEL_SCAVENGE=1 leaves V8 its own choice', () => {
    assert.deepEqual(run({ IFRS_PARALLEL_SCAVENGE: '1' }), { applied: false, set: [] });
  });

  it("rule: an operator's own scavenger or GC threading flag (node flags or NODE_OPTIONS) wins", () => {
    for (const flag of ['--parallel-scavenge', '--no-parallel-scavenge', '--parallel_scavenge', '--single-threaded-gc']) {
      assert.deepEqual(run({}, [flag]).set, [], flag);
      assert.deepEqual(run({ NODE_OPTIONS: `--max-old-space-size=512 ${flag}` }).set, [], flag);
    }
  });
});
