#!/usr/bin/env node
// The CLI runs the TypeScript sources through tsx, so `npx ifrs` needs no build step.
require('tsx/cjs');
require('../src/cli/main.ts')
  .main(process.argv)
  .catch((e) => {
    process.stderr.write(`ifrs: ${(e && e.message) || e}\n`);
    process.exit(1);
  });
