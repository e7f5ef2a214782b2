import type { BenchScenario } from '../types';

/** Lets a scenario file run by itself (`npx tsx bench/scenarios/x.ts [--quick]`), printing its rows as JSON. */
export function runStandalone(scenario: BenchScenario): void {
  scenario
    .run({ quick: process.argv.includes('--quick'), log: (m) => process.stderr.write(m + '\n') })
    .then((rows) => console.log(JSON.stringify(rows, null, 2)))
    .catch((e) => {
      console.error(e);
      process.exit(1);
    });
}
