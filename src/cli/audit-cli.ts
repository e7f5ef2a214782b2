import cliProgress from 'cli-progress';
import type { Command } from 'commander';
import { countScope, verifyChains, verifyStream, type ChainScope, type StreamVerdict } from '../../infra/eventstore/chain-audit';
import { PostgresEventStore } from '../../infra/eventstore/postgres-event-store';
import { USAGE_EXIT, fail } from './output';
import { withRuntime } from './main';

function scopeOf(o: { stream?: string; category?: string; all?: boolean }): ChainScope {
  const given = [o.stream !== undefined, o.category !== undefined, !!o.all].filter(Boolean).length;
  if (given !== 1) fail('give exactly one of --stream, --category, --all', USAGE_EXIT);
  if (o.stream !== undefined) return { stream: o.stream };
  if (o.category !== undefined) return { category: o.category };
  return { all: true };
}

/** What verify prints: the counts and each broken stream's first broken version (exit 1 when any). */
function report(streams: number, events: number, broken: StreamVerdict[]) {
  for (const b of broken) process.stderr.write(`ifrs: ${b.streamId}: chain broken at version ${b.firstBrokenVersion}\n`);
  if (broken.length) process.exitCode = 1;
  return { verified: broken.length === 0, streams, events, broken: broken.map((b) => ({ streamId: b.streamId, firstBrokenVersion: b.firstBrokenVersion, version: b.version })) };
}

/**
 * `ifrs audit verify`: recomputes the tamper-evidence chains (src/domain/event-hash.ts) of one
 * stream, a category or the whole log, with a progress bar on a terminal.
 */
export function auditCli(program: Command): void {
  const audit = program.command('audit').description('tamper evidence of the event log, for auditors');
  audit
    .command('verify')
    .description('recompute the hash chains; exits 1 naming the first broken event of each broken stream')
    .option('--stream <id>', 'one stream')
    .option('--category <name>', 'every stream <name>-*')
    .option('--all', 'every stream')
    .action((o: { stream?: string; category?: string; all?: boolean }, cmd: Command) => {
      const scope = scopeOf(o);
      return withRuntime(cmd, async (rt) => {
        const broken: StreamVerdict[] = [];
        if (!(rt.store instanceof PostgresEventStore)) {
          if (!('stream' in scope)) fail('--category and --all need the Postgres event store; give --stream', USAGE_EXIT);
          const v = await verifyStream(rt.store, scope.stream);
          return report(1, v.version, v.verified ? [] : [{ streamId: scope.stream, ...v }]);
        }
        const total = await countScope(rt.db.knex, scope);
        const bar = process.stderr.isTTY ? new cliProgress.SingleBar({ format: 'verify [{bar}] {value}/{total} events {eta_formatted}', stream: process.stderr }, cliProgress.Presets.shades_classic) : null;
        bar?.start(total, 0);
        let streams = 0;
        let events = 0;
        try {
          await verifyChains(
            rt.db.knex,
            scope,
            (v) => {
              streams++;
              if (!v.verified) broken.push(v);
            },
            (n) => {
              events += n;
              bar?.increment(n);
            },
          );
        } finally {
          bar?.stop();
        }
        return report(streams, events, broken);
      });
    });
}
