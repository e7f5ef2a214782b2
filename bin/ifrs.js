#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx, so `npx ifrs` needs no build step.
require('tsx/cjs');
// A bulk job (`ifrs import`) runs in a child node with a larger young generation (src/util/bulk-node-flags.ts).
if (!require('../src/cli/relaunch.ts').relaunchedWithBulkFlags(process.argv, __filename)) {
  require('../src/cli/main.ts')
    .main(process.argv)
    .catch((e) => {
      process.stderr.write(`ifrs: ${(e && e.message) || e}\n`);
      process.exit(1);
    });
}
