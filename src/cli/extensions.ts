import type { CliExtension } from './cli-extension';
import { workingFilingsCli } from './working-filings-cli';
import { importCommand } from './import/import-cli';
import { demoCommand } from './demo/demo-cli';

/** Feature commands (import, demo seed, ...) add themselves here. */
export const CLI_EXTENSIONS: CliExtension[] = [importCommand, workingFilingsCli, demoCommand];
