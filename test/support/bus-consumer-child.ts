/**
 * A bus consumer in its own process, for the contract's crash test: the parent kills it with SIGKILL
 * mid-stream. Each handled batch appends its event ids (one per line) to BUS_OUT before the handler
 * returns, so the file lists exactly what was applied. Env: see busFromEnv, plus BUS_GROUP,
 * BUS_TYPES (comma-separated), BUS_OUT, BUS_DELAY_MS (per batch, to keep batches in flight).
 */
import fs from 'node:fs';
import { busFromEnv } from './bus-adapters';

async function main() {
  const { bus } = await busFromEnv(process.env);
  const delay = Number(process.env.BUS_DELAY_MS ?? 20);
  await bus.consume(process.env.BUS_GROUP!, process.env.BUS_TYPES!.split(','), async (events) => {
    await new Promise((r) => setTimeout(r, delay));
    fs.appendFileSync(process.env.BUS_OUT!, events.map((e) => e.eventId + '\n').join(''));
  });
  process.stdout.write('ready\n');
}

main().catch((e) => {
  process.stderr.write(`bus consumer child failed: ${(e as Error).stack}\n`);
  process.exit(1);
});
