import type { Knex } from 'knex';
import { runScript } from '../postgres/sql-script';
import { runStatement } from '../postgres/prepared';
import { rolledBack } from '../postgres/pg-errors';

/** A prepared append statement (fixed text) and one call's parameters. */
export interface AppendCall {
  /** The stream it moves: a batch never holds one that a batch in flight holds (see pump). */
  streamId: string;
  name: string;
  text: string;
  values: unknown[];
}

interface Pending {
  call: AppendCall;
  resolve(rows: Record<string, unknown>[]): void;
  reject(e: unknown): void;
}

/** Appends one script carries at most: a batch's statement text grows with it, and so does its transaction. */
const MAX_BATCH = 64;
/**
 * Batches on their way at once. One at a time made every batch wait for the last one's WAL flush: on
 * a busy disk that capped 16 writers at a batch per fsync (about 200 creates/s against 400-1,200 for
 * separate commits in the same minutes), where concurrent commits overlap their flushes.
 */
const MAX_IN_FLIGHT = 4;

/**
 * A parameter as the text the extended protocol would send for it (arrays in Postgres's array syntax),
 * so that EXECUTE, which casts each argument to the prepared parameter's type as an unknown literal
 * would be, reads the same value: a typed `array[...]` of text would not cast to `uuid[]`.
 */
function asText(v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (Array.isArray(v)) return `{${v.map((e) => (e === null || e === undefined ? 'NULL' : `"${String(e).replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`)).join(',')}}`;
  return String(v);
}

/**
 * Concurrent appends share one round trip and one commit. The appends that the event loop's current turn
 * made (the requests read together reach their appends together) go out as one batch once that turn's
 * callbacks ran, as one multi-statement query of EXECUTEs: one implicit transaction, so one commit
 * record and one WAL flush for all of them where each append was its own synchronous commit, and one
 * round trip where each was one. A batch of one goes the same way, for its generic plan.
 * Up to MAX_IN_FLIGHT batches travel at once; what comes meanwhile waits for the next free one.
 *
 * Each append is still its own statement, with its expected-version move first: one that loses its
 * race (or whose guard refuses) matches no row and returns nothing, without failing the others. A
 * statement that fails (a deadlock with another process, a value Postgres refuses) rolls the whole
 * batch back, and its appends are then run one by one, so only the failing one fails (the positions
 * the rolled-back batch drew stay unused; the log's order never depended on dense positions).
 * Durability is unchanged: every append is answered after its batch committed, synchronously. The
 * statements run with their generic plans (runScript), which Postgres did not always pick for the
 * guarded append on its own.
 */
export class AppendBatcher {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Streams of the batches in flight. */
  private readonly busy = new Set<string>();

  constructor(private readonly knex: Knex) {}

  /** Runs `call` (in a batch with others if some are waiting) and answers its rows. */
  run(call: AppendCall): Promise<Record<string, unknown>[]> {
    return new Promise((resolve, reject) => {
      this.queue.push({ call, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Batches are formed once the event loop has run what it has at hand: the requests read in one turn
   * reach their appends in that turn's callbacks, and setImmediate runs right after them.
   */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  /**
   * Sends what waits, while fewer than MAX_IN_FLIGHT batches are on their way. An append whose stream
   * is in a batch in flight waits for a later one, so this process's batches never wait for each other.
   */
  private pump(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length) {
      const batch: Pending[] = [];
      const rest: Pending[] = [];
      for (const p of this.queue) {
        if (batch.length < MAX_BATCH && !this.busy.has(p.call.streamId)) batch.push(p);
        else rest.push(p);
      }
      if (!batch.length) return;
      this.queue = rest;
      this.inFlight++;
      const streams = batch.map((p) => p.call.streamId);
      for (const s of streams) this.busy.add(s);
      void this.together(batch).finally(() => {
        this.inFlight--;
        for (const s of streams) this.busy.delete(s);
        this.schedule();
      });
    }
  }

  /** One append as a statement of its own (the extended protocol's prepared statement). */
  private async alone(p: Pending): Promise<void> {
    try {
      p.resolve(await runStatement<Record<string, unknown>>(this.knex, p.call));
    } catch (e) {
      p.reject(e);
    }
  }

  private async together(unordered: Pending[]): Promise<void> {
    // In stream order: batches of other processes (API processes scaled out) take their stream rows in
    // the same order, so two batches wait for one another but never deadlock. A stream's own appends
    // keep their order (a stable sort).
    const batch = unordered.length > 1 ? [...unordered].sort((a, b) => (a.call.streamId < b.call.streamId ? -1 : a.call.streamId > b.call.streamId ? 1 : 0)) : unordered;
    let results;
    try {
      results = await runScript(
        this.knex,
        batch.map((p) => ({ text: p.call.text, values: p.call.values.map(asText), reuse: true })),
      );
    } catch (e) {
      // A statement's error: the server rolled the batch back, so each append goes again on its own and
      // only a failing one fails. Anything else (the connection lost, the server going away) may have
      // come after the commit: the appends fail as a lone append would, never made twice.
      if (!rolledBack(e)) for (const p of batch) p.reject(e);
      else for (const p of batch) await this.alone(p);
      return;
    }
    batch.forEach((p, i) => p.resolve(results[i].rows as Record<string, unknown>[]));
  }
}
