import cliProgress from 'cli-progress';

export interface Progress {
  /** Moves the bar to `value` of `total` (the total may grow, as a log's head does while it is read). */
  update(value: number, total?: number): void;
  stop(): void;
}

/** 12345678 → 12.3M: a rate or a count that fits the bar line. */
export function compact(n: number): string {
  if (!Number.isFinite(n)) return '-';
  const abs = Math.abs(n);
  if (abs >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (abs >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (abs >= 1e4) return `${(n / 1e3).toFixed(1)}k`;
  return String(Math.round(n));
}

/**
 * A progress bar on stderr with the rate since the start and cli-progress's ETA, or null when stderr is
 * not a terminal: a pipe or a log file gets no redraw sequences (stdout keeps the one result either way).
 */
export function startProgress(label: string, unit: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress | null {
  if (!stream.isTTY) return null;
  const bar = new cliProgress.SingleBar(
    {
      format: `${label} [{bar}] {percentage}% {done}/{all} ${unit} | {rate} ${unit}/s | ETA {eta_formatted}`,
      stream,
      etaBuffer: 50,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  const started = Date.now();
  let start = 0;
  let first = true;
  const payload = (value: number, all: number) => ({ done: compact(value), all: compact(all), rate: compact((value - start) / Math.max(0.001, (Date.now() - started) / 1000)) });
  return {
    update(value, t) {
      if (first) {
        first = false;
        // A run that resumes (a catch-up from a checkpoint) counts its rate from where it began.
        start = value;
        total = t ?? total;
        bar.start(Math.max(1, total), value, payload(value, total));
        return;
      }
      if (t !== undefined && t !== total) {
        total = t;
        bar.setTotal(Math.max(1, t));
      }
      bar.update(value, payload(value, total));
    },
    stop() {
      if (!first) bar.stop();
    },
  };
}
