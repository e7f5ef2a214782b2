import pino from 'pino';

export type Logger = pino.Logger;

/** How much a buffered logger collects before it writes, and how long a line may wait at most. */
const BUFFER_BYTES = 4096;
const FLUSH_EVERY_MS = 200;

/**
 * Structured JSON logs to stderr: stdout is reserved for the CLI's one JSON result. `buffered` (the server's):
 * lines are collected up to 4 KiB and written asynchronously, at the latest 200 ms after they were logged, so
 * that under load about sixteen access-log lines go out in one write. A write per line cost the API process about
 * a fifth of its CPU on a cached catalog page (the write's system call and thread-pool hand-off, not the line),
 * measured with bench/scenarios/catalog-list.ts against LOG_LEVEL=warn. pino writes what is pending when the
 * process exits; a kill -9 loses at most the last 200 ms of lines.
 */
export function createLogger(level = process.env.LOG_LEVEL ?? 'info', opts: { buffered?: boolean } = {}): Logger {
  if (!opts.buffered) return pino({ level, base: { service: 'ifrs' } }, pino.destination({ dest: 2, sync: true }));
  const destination = pino.destination({ dest: 2, sync: false, minLength: BUFFER_BYTES });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Destroyed at exit: nothing left to write.
    }
  }, FLUSH_EVERY_MS).unref();
  return pino({ level, base: { service: 'ifrs' } }, destination);
}
