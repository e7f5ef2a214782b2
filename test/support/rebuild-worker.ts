// A separate process that rebuilds the counting projection and pauses in its second batch until a file exists
// (see the rebuild-leftovers test): by then the first batch is committed to the shadow table.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/util/logger';
import { openRuntime } from '../../src/runtime';
import { TOKENS } from '../../src/ports/tokens';
import type { RecordedEvent } from '../../src/domain/events';
import type { ProjectionContext } from '../../projections/projector';
import { CountingProjector } from './counting-projector';

class PausingCountingProjector extends CountingProjector {
  private batches = 0;

  constructor(private readonly goFile: string) {
    super();
  }

  override async apply(ctx: ProjectionContext, events: RecordedEvent[]): Promise<void> {
    if (++this.batches === 2) {
      process.stdout.write('paused\n');
      while (!fs.existsSync(this.goFile)) await new Promise((r) => setTimeout(r, 10));
    }
    await super.apply(ctx, events);
  }
}

async function main() {
  const [url, goFile] = process.argv.slice(2);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-rebuild-worker-'));
  const rt = await openRuntime(loadConfig({}, { databaseUrl: url, dataDir }), createLogger('silent'), {
    configure: (c) => c.bind(TOKENS.Projector).toConstantValue(new PausingCountingProjector(goFile)),
  });
  await rt.engine.rebuild(['test-counter']);
  await rt.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  process.stdout.write('done\n');
}

main().catch((e) => {
  process.stderr.write(String(e?.stack ?? e) + '\n');
  process.exit(1);
});
