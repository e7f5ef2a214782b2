import type { Command } from 'commander';
import { importCommand } from '../../commands/import/import-cli';

/** Feature commands (import, demo seed, ...) add themselves here. */
export type CliExtension = (program: Command) => void;

export const CLI_EXTENSIONS: CliExtension[] = [importCommand];
