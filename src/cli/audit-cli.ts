import fs from 'node:fs';
import readline from 'node:readline';
import cliProgress from 'cli-progress';
import { Option, type Command } from 'commander';
import { ExportVerifier, countScope, readScope, verifyChains, verifyStream, type ChainScope, type ExportedEvent, type StreamVerdict } from '../../infra/eventstore/chain-audit';
import { PostgresEventStore } from '../../infra/eventstore/postgres-event-store';
import { FilingHistory } from '../../queries/managed-filings/filing-history';
import { fullFilingFromState } from '../../queries/managed-filings/records';
import { changeEntries } from '../../queries/managed-filings/state-diff';
import { USAGE_EXIT, fail, printResult } from './output';
import { withRuntime } from './main';

interface ScopeFlags {
  stream?: string;
  category?: string;
  all?: boolean;
}

function scopeOf(o: ScopeFlags): ChainScope {
  const given = [o.stream !== undefined, o.category !== undefined, !!o.all].filter(Boolean).length;
  if (given !== 1) fail('give exactly one of --stream, --category, --all', USAGE_EXIT);
  if (o.stream !== undefined) return { stream: o.stream };
  if (o.category !== undefined) return { category: o.category };
  return { all: true };
}

function progressBar(label: string, total: number): cliProgress.SingleBar | null {
  if (!process.stderr.isTTY) return null;
  const bar = new cliProgress.SingleBar({ format: `${label} [{bar}] {value}/{total} events {eta_formatted}`, stream: process.stderr }, cliProgress.Presets.shades_classic);
  bar.start(total, 0);
  return bar;
}

/** What verify prints: the counts and each broken stream's first broken version (exit 1 when any). */
function report(streams: number, events: number, broken: StreamVerdict[], extra: Record<string, unknown> = {}) {
  for (const b of broken) process.stderr.write(`ifrs: ${b.streamId}: chain broken at version ${b.firstBrokenVersion}\n`);
  if (broken.length) process.exitCode = 1;
  return { verified: broken.length === 0, streams, events, broken: broken.map((b) => ({ streamId: b.streamId, firstBrokenVersion: b.firstBrokenVersion, version: b.version })), ...extra };
}

/** An export checked offline, without a database; `head` (one stream's export) must be its last hash. */
async function verifyFile(file: string, head: string | undefined) {
  const v = new ExportVerifier();
  const lines = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (!line.trim()) continue;
    let e: ExportedEvent;
    try {
      e = JSON.parse(line) as ExportedEvent;
    } catch {
      fail(`${file}:${n}: not a JSON line (verify reads the jsonl export)`);
    }
    v.push(e);
  }
  const verdicts = v.verdicts();
  const broken = verdicts.filter((x) => !x.verified);
  const heads = Object.fromEntries(verdicts.map((x) => [x.streamId, x.headHash]));
  if (head !== undefined) {
    if (verdicts.length !== 1) fail('--head needs an export of one stream', USAGE_EXIT);
    const only = verdicts[0];
    if (only.verified && only.headHash !== head) broken.push({ ...only, verified: false, firstBrokenVersion: only.version });
  }
  return report(verdicts.length, v.events, broken, { headHashes: heads });
}

const CSV_COLUMNS = ['streamId', 'version', 'type', 'schemaVersion', 'recordedAt', 'eventId', 'prevHash', 'hash', 'data', 'metadata'] as const;

function csvCell(v: unknown): string {
  const s = v === null || v === undefined ? '' : typeof v === 'string' ? v : JSON.stringify(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

function csvLine(e: ExportedEvent): string {
  const row: Record<(typeof CSV_COLUMNS)[number], unknown> = { ...e, prevHash: e.metadata.prevHash, hash: e.metadata.hash };
  return CSV_COLUMNS.map((c) => csvCell(row[c])).join(',') + '\r\n';
}

/**
 * The auditors' commands (issue 23): `audit verify` recomputes the tamper-evidence chains
 * (src/domain/event-hash.ts) of a stream, a category or the whole log, or of an export offline;
 * `events export` writes the log with its hashes; `filings show|changes` answer as the HTTP reads.
 */
export function auditCli(program: Command): void {
  const audit = program.command('audit').description('tamper evidence of the event log, for auditors');
  audit
    .command('verify')
    .description('recompute the hash chains; exits 1 naming the first broken event of each broken stream')
    .option('--stream <id>', 'one stream')
    .option('--category <name>', 'every stream <name>-*')
    .option('--all', 'every stream')
    .option('--file <path>', 'an `ifrs events export` JSONL file, checked offline (no database)')
    .option('--head <hash>', 'with --file of one stream: the head hash it must end at (GET .../integrity headHash)')
    .action(async (o: ScopeFlags & { file?: string; head?: string }, cmd: Command) => {
      if (o.file !== undefined) {
        if (o.stream !== undefined || o.category !== undefined || o.all) fail('--file verifies the export alone: no --stream, --category or --all', USAGE_EXIT);
        if (!fs.existsSync(o.file)) fail(`${o.file}: no such file`);
        printResult(await verifyFile(o.file, o.head));
        return;
      }
      if (o.head !== undefined) fail('--head goes with --file', USAGE_EXIT);
      const scope = scopeOf(o);
      return withRuntime(cmd, async (rt) => {
        if (!(rt.store instanceof PostgresEventStore)) {
          if (!('stream' in scope)) fail('--category and --all need the Postgres event store; give --stream', USAGE_EXIT);
          const v = await verifyStream(rt.store, scope.stream);
          return report(1, v.version, v.verified ? [] : [{ streamId: scope.stream, ...v }]);
        }
        const broken: StreamVerdict[] = [];
        const bar = progressBar('verify', await countScope(rt.db.knex, scope));
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

  const events = program.commands.find((c) => c.name() === 'events') ?? program.command('events');
  events
    .command('export')
    .description('write the log with its hashes (JSONL: one event a line, verifiable with `ifrs audit verify --file`)')
    .option('--stream <id>', 'one stream')
    .option('--category <name>', 'every stream <name>-*')
    .option('--all', 'every stream')
    .addOption(new Option('--format <format>', 'jsonl or csv').choices(['jsonl', 'csv']).default('jsonl'))
    .requiredOption('--out <file>', 'the file to write')
    .action((o: ScopeFlags & { format: 'jsonl' | 'csv'; out: string }, cmd: Command) => {
      const scope = scopeOf(o);
      return withRuntime(cmd, async (rt) => {
        if (!(rt.store instanceof PostgresEventStore)) fail('events export needs the Postgres event store');
        const out = fs.createWriteStream(o.out);
        const write = (s: string) => (out.write(s) ? Promise.resolve() : new Promise<void>((r) => out.once('drain', () => r())));
        if (o.format === 'csv') await write(CSV_COLUMNS.join(',') + '\r\n');
        const bar = progressBar('export', await countScope(rt.db.knex, scope));
        let n = 0;
        try {
          for await (const page of readScope(rt.db.knex, scope)) {
            await write(page.map((e) => (o.format === 'csv' ? csvLine(e) : JSON.stringify(e) + '\n')).join(''));
            n += page.length;
            bar?.increment(page.length);
          }
        } finally {
          bar?.stop();
          await new Promise<void>((r, j) => out.end((e?: Error | null) => (e ? j(e) : r())));
        }
        return { out: o.out, format: o.format, events: n };
      });
    });

  const filings = program.commands.find((c) => c.name() === 'filings') ?? program.command('filings').description('working filings, for auditors');
  filings
    .command('show <id>')
    .description('a working filing as it stood (rebuilt from its event log)')
    .option('--as-of <timestamp>', 'ISO 8601 date-time with a time zone (default: now)')
    .option('--at-version <n>', 'stream version')
    .action((id: string, o: { asOf?: string; atVersion?: string }, cmd: Command) => {
      if (o.asOf !== undefined && o.atVersion !== undefined) fail('give --as-of or --at-version, not both', USAGE_EXIT);
      if (o.asOf !== undefined && (!/T.*(Z|[+-]\d\d:?\d\d)$/i.test(o.asOf) || Number.isNaN(Date.parse(o.asOf)))) fail('--as-of must be an ISO 8601 date-time with a time zone', USAGE_EXIT);
      if (o.atVersion !== undefined && !/^[1-9]\d*$/.test(o.atVersion)) fail('--at-version must be a whole number from 1', USAGE_EXIT);
      return withRuntime(cmd, async (rt) => {
        const point = o.atVersion !== undefined ? { atVersion: Number(o.atVersion) } : { asOf: o.asOf !== undefined ? new Date(o.asOf) : new Date() };
        const at = await new FilingHistory(rt.store).at(id.toLowerCase(), point);
        const { permissions: _p, ...filing } = fullFilingFromState(at.state, { read: true, edit: false, manageAccess: false });
        return { ...filing, version: at.version };
      });
    });
  filings
    .command('changes <id>')
    .description('field-level change history of a working filing, one entry per event, oldest first')
    .action((id: string, _o: unknown, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const events = await new FilingHistory(rt.store).events(id.toLowerCase());
        if (!events.length) fail(`filing ${id} has no history`);
        const { entries } = changeEntries(events);
        const ids = [...new Set(entries.map((e) => e.actor.userId).filter((u): u is string => u !== null))];
        const names = new Map((await rt.db.knex('identity_users').whereIn('id', ids).select('id', 'name')).map((r: { id: string; name: string }) => [r.id, r.name]));
        for (const e of entries) if (e.actor.userId) e.actor.name = names.get(e.actor.userId) ?? null;
        return { filingId: id.toLowerCase(), changes: entries };
      }),
    );
}
