import type { Command } from 'commander';

/** A feature's commands (import, demo seed, ...): adds them to the program (src/cli/extensions.ts lists them). */
export type CliExtension = (program: Command) => void;
