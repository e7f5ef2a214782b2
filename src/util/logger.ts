import pino from 'pino';

export type Logger = pino.Logger;

/**
 * Structured JSON logs to stderr: stdout is reserved for the CLI's one JSON result. `buffered` (the server's):
 * lines are written asynchronously, so that under load many go out in one write instead of a system call per
 * line (the access log writes one per request); pino flushes what is pending when the process exits.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', opts: { buffered?: boolean } = {}): Logger {
  return pino({ level, base: { service: 'ifrs' } }, pino.destination({ dest: 2, sync: !opts.buffered }));
}
