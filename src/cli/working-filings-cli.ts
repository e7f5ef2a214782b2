import type { Command } from 'commander';
import { ManagedFilingCommands } from '../../commands/managed-filings/managed-filing-commands';
import { withRuntime } from './with-runtime';

/**
 * `ifrs admin share --filing F --scope S`: shares a working filing into a scope of another tenant.
 * The receiving tenant sees it (read only) in that scope while its sharing mode is on.
 */
export function workingFilingsCli(program: Command): void {
  const admin = program.commands.find((c) => c.name() === 'admin') ?? program.command('admin');
  admin
    .command('share')
    .description('share a working filing into a scope of another tenant (read only there; needs that tenant\'s sharing on)')
    .requiredOption('--filing <id>', 'managed filing id')
    .requiredOption('--scope <scope>', 'target scope mc:<uuid> of another tenant')
    .action((o: { filing: string; scope: string }, cmd: Command) =>
      withRuntime(cmd, (rt) => rt.container.get(ManagedFilingCommands).share(o.filing, o.scope, { actor: 'operator:cli' })),
    );
}
