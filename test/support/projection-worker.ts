// A separate process that runs the counting projection until it is killed (see projection-crash test).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';
import { CountingProjector } from './counting-projector';

async function main() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-worker-'));
  const rt = await openRuntime(loadConfig({}, { databaseUrl: process.argv[2], dataDir }), createLogger('silent'), {
    configure: (c) => c.bind(TOKENS.Projector).toConstantValue(new CountingProjector()),
  });
  process.stdout.write('ready\n');
  await rt.engine.catchUp(['test-counter']);
  await rt.close();
  process.stdout.write('done\n');
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
