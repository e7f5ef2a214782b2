import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs to stderr: stdout is reserved for the CLI's one JSON result. */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info'): Logger {
  return pino({ level, base: { service: 'ifrs' } }, pino.destination(2));
}
