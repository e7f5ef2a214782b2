import type { Command } from 'commander';
import { loadConfig, type Config } from '../config';
import { createLogger } from '../util/logger';
import { openRuntime, type Runtime } from '../runtime';
import { DomainError, AppError } from '../domain/errors';
import { ensureDir } from '../util/ensure-dir';
import { fail, printResult } from './output';

/**
 * The configuration from the environment and this command's flags. Every command starts here, before it
 * opens anything: a bad value ends the command (ConfigError, exit 2) with nothing started.
 */
export function configFrom(cmd: Command): Config {
  const opts = cmd.optsWithGlobals() as { dataDir?: string; port?: string; host?: string };
  const config = loadConfig(process.env, {}, { dataDir: opts.dataDir, port: opts.port, host: opts.host });
  // Checked first, so that an unusable directory is one line now rather than a failure deep in a start.
  try {
    ensureDir(config.dataDir);
  } catch (e) {
    fail(`data directory ${config.dataDir}: ${(e as Error).message}`);
  }
  return config;
}

/** Opens the runtime, runs fn, prints its result, closes. Every non-serve command goes through here. */
export async function withRuntime<T>(cmd: Command, fn: (rt: Runtime) => Promise<T>): Promise<void> {
  const config = configFrom(cmd);
  const log = createLogger(process.env.LOG_LEVEL || 'warn');
  let rt: Runtime | null = null;
  try {
    rt = await openRuntime(config, log, { poolMax: 10 });
    const result = await fn(rt);
    if (result !== undefined) printResult(result);
  } catch (e) {
    if (rt) await rt.close().catch(() => undefined);
    rt = null;
    if (e instanceof DomainError || e instanceof AppError) fail(e.message);
    fail((e as Error).message ?? String(e));
  } finally {
    if (rt) await rt.close();
  }
}

