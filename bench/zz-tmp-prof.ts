import { benchDatabase } from './support/postgres';
import { UnhashedAppender } from './support/unhashed-append';
import { openDatabase } from '../infra/postgres/database';
import { PostgresEventStore } from '../infra/eventstore/postgres-event-store';
import { createLogger } from '../src/logger';
async function main() {
  const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: await benchDatabase(), log: createLogger('warn'), poolMax: 40 });
  const store = new PostgresEventStore(db.knex);
  const un = new UnhashedAppender(db.knex);
  const side = process.env.SIDE === 'un' ? (s: string, e: any, v: number, m: any) => un.append(s, e, v, m) : (s: string, e: any, v: number, m: any) => store.append(s, e, v, m);
  const data = { filingId: '6f1c3a52-3f0e-4f57-9d55-0b7d3d2c1a11', scheduleType: 'form', scheduleSeqNo: 3, context: 'Homeowners policy form HO 00 03, revised wildfire exclusion wording.' };
  const metadata = { actor: 'bench', userId: 'u_7f3a', requestId: 'req-6c1f0d2e', tenantId: 't_1' };
  const deadline = Date.now() + 6000; let n = 0;
  const cpu = process.cpuUsage();
  await Promise.all(Array.from({ length: 16 }, async (_, w) => { let s = 0, v = 0; while (Date.now() < deadline) { if (v >= 5000) { s++; v = 0; } v = (await side(`p-${w}-${s}`, Array.from({ length: 100 }, () => ({ type: 'BenchEvent', data })), v, metadata)).nextVersion; n++; } }));
  const u = process.cpuUsage(cpu);
  console.log(process.env.SIDE, n, 'appends', ((u.user + u.system) / n).toFixed(0), 'µs node per append');
  await store.close(); await db.close(); process.exit(0);
}
main();
