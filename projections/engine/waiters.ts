import type { LogPosition } from '../../src/domain/events';
import { comparePositions } from '../../src/domain/events';

interface Waiter {
  position: LogPosition;
  /** This projector reached the position. */
  reached(): void;
  /** The engine stopped: the wait re-checks on its own. */
  abort(): void;
}

/**
 * Read-your-writes bookkeeping: the newest position each projector is known to have reached in this
 * process, and the writes waiting for a position, released by the batch that reaches it (no polling).
 */
export class ProjectionWaiters {
  private readonly positions = new Map<string, LogPosition>();
  private readonly waiters = new Map<string, Set<Waiter>>();

  /** A projector reached `pos`: releases the waits it satisfies. */
  note(name: string, pos: LogPosition): void {
    const prev = this.positions.get(name);
    if (prev && comparePositions(pos, prev) <= 0) return;
    this.positions.set(name, pos);
    const waiting = this.waiters.get(name);
    if (waiting)
      for (const w of waiting)
        if (comparePositions(pos, w.position) >= 0) {
          waiting.delete(w);
          w.reached();
        }
  }

  reached(name: string, position: LogPosition): boolean {
    const p = this.positions.get(name);
    return !!p && comparePositions(p, position) >= 0;
  }

  /** Whether a write waits on this projector now. */
  waitedOn(name: string): boolean {
    return !!this.waiters.get(name)?.size;
  }

  /**
   * Registers with each named projector and calls `wake` for it; resolves when all reached `position`,
   * on abortAll or after `ms`.
   */
  untilReached(names: string[], position: LogPosition, ms: number, wake: (name: string) => void): Promise<void> {
    return new Promise<void>((resolve) => {
      const mine: [string, Waiter][] = [];
      let left = names.length;
      const finish = () => {
        clearTimeout(timer);
        for (const [n, w] of mine) this.waiters.get(n)?.delete(w);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      for (const n of names) {
        const w: Waiter = { position, reached: () => --left === 0 && finish(), abort: finish };
        let waiting = this.waiters.get(n);
        if (!waiting) this.waiters.set(n, (waiting = new Set()));
        waiting.add(w);
        mine.push([n, w]);
        wake(n);
      }
    });
  }

  /** The engine stops: every wait wakes and re-checks on its own. */
  abortAll(): void {
    for (const waiting of this.waiters.values()) for (const w of [...waiting]) w.abort();
  }
}
