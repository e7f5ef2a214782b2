import type { Command } from 'commander';
import { workingFilingsCli } from './working-filings-cli';
import { importCommand } from '../../commands/import/import-cli';
import { demoCommand } from '../../commands/demo/demo-cli';
import { auditCli } from './audit-cli';

/** Feature commands (import, demo seed, ...) add themselves here. */
export type CliExtension = (program: Command) => void;

export const CLI_EXTENSIONS: CliExtension[] = [importCommand, workingFilingsCli, demoCommand, auditCli];
