import { EventEmitter } from 'node:events';
import type { Knex } from 'knex';
import { CompressionTypes, Partitioners, type Kafka, type Message, type Producer } from 'kafkajs';
import { START, comparePositions, type LogPosition, type RecordedEvent } from '../../src/domain/events';
import type { Logger } from '../../src/util/logger';
import type { EventStore } from '../../src/ports/event-store';
import { readCheckpoint, writeCheckpoint } from './checkpoint';
import { ensureTopic, type KafkaTopicSettings } from './kafka-client';
import { toMessage } from './kafka-message';
import { SessionLock } from './session-lock';

/** How often at most a busy relay confirms that its leader lock's session is still alive. */
const LOCK_CHECK_MS = 1000;

/** A step of the relay loop that has not ended after this long is logged as stalled (once per step). */
const STALL_MS = 15_000;

type Step = 'acquiring the lock' | 'standing by' | 'reading' | 'producing' | 'checkpointing' | 'checking the lock' | 'waiting for events';

/** A read batch already turned into produce requests. */
interface PreparedBatch {
  horizon: LogPosition;
  chunks: Message[][];
}

export interface KafkaRelayOptions extends KafkaTopicSettings {
  /** Events read from the store per batch (one checkpoint write per batch). */
  batchSize?: number;
  /** Checkpoint row in projection_checkpoints; also the name of the leader lock. */
  checkpointName?: string;
  /** Upper bound on the value bytes of one produce request (the topic allows 10 MB per partition batch). */
  maxRequestBytes?: number;
}

/**
 * Relays committed events from the EventStore to Kafka: a catch-up subscription on the store from the
 * checkpoint `relay:kafka`, producing every event keyed by stream id, and moving the checkpoint only
 * after the broker acknowledged the batch (acks = all). A crash between acknowledgement and checkpoint
 * sends that batch again: delivery is at least once, and consumers dedupe on event id. The producer is
 * idempotent, so its own retries inside one session add no duplicates. One relay is active at a time
 * (a Postgres advisory lock); others stand by, so the topic gets each stream's events in order.
 */
export class KafkaRelay {
  private producer: Producer | null = null;
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private readonly lock: SessionLock;
  private readonly progress = new EventEmitter();
  private position: LogPosition = START;
  private readonly batchSize: number;
  private readonly checkpointName: string;
  private readonly maxRequestBytes: number;
  /** Events produced since start (duplicates after a crash included). */
  relayed = 0;
  /** What the loop is awaiting, and since when: a relay that stops moving says where it stopped. */
  private step: { name: Step; since: number; warned: boolean } = { name: 'acquiring the lock', since: Date.now(), warned: false };
  private watchdog: NodeJS.Timeout | null = null;

  constructor(
    private readonly knex: Knex,
    private readonly store: EventStore,
    private readonly kafka: Kafka,
    private readonly log: Logger,
    private readonly opts: KafkaRelayOptions,
  ) {
    this.batchSize = opts.batchSize ?? 5000;
    this.checkpointName = opts.checkpointName ?? 'relay:kafka';
    this.maxRequestBytes = opts.maxRequestBytes ?? 4 * 1024 * 1024;
    this.lock = new SessionLock(knex, this.checkpointName);
    this.progress.setMaxListeners(0);
  }

  /** The position acknowledged and checkpointed by this process (START while standing by). */
  get relayedUpTo(): LogPosition {
    return this.position;
  }

  async start(): Promise<void> {
    if (this.running) return;
    await ensureTopic(this.kafka, this.opts);
    const producer = this.kafka.producer({
      idempotent: true,
      // Idempotence needs unlimited retries: a send waits out a broker outage instead of failing (stop() disconnects).
      retry: { retries: Number.MAX_SAFE_INTEGER, maxRetryTime: 10_000 },
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
    });
    await producer.connect();
    this.producer = producer;
    this.running = true;
    this.unlisten = await this.store.onAppended(() => this.wake?.());
    this.watchdog = setInterval(() => this.noteStall(), 1000);
    this.watchdog.unref();
    this.loop = this.run();
  }

  private at<T>(name: Step, work: Promise<T>): Promise<T> {
    this.step = { name, since: Date.now(), warned: false };
    return work;
  }

  private noteStall(): void {
    const { name, since, warned } = this.step;
    const ms = Date.now() - since;
    if (warned || ms < STALL_MS || name === 'standing by' || name === 'waiting for events') return;
    this.step.warned = true;
    this.log.warn({ relay: this.checkpointName, step: name, ms }, 'kafka relay stalled');
  }

  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
    this.wake?.();
    await this.loop;
    this.loop = null;
    await this.unlisten?.();
    await this.producer?.disconnect();
    this.producer = null;
    await this.lock.release();
  }

  /** Resolves once this relay has checkpointed `pos` (rejects after timeoutMs). */
  async waitFor(pos: LogPosition, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (comparePositions(this.position, pos) < 0) {
      if (Date.now() > deadline) throw new Error(`kafka relay did not reach ${pos.commit}:${pos.prepare} within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, 100);
        const progress = this.progress;
        function done() {
          clearTimeout(t);
          progress.off('progress', done);
          resolve();
        }
        progress.on('progress', done);
      });
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(t);
        if (this.wake === done) this.wake = null;
        resolve();
      };
      const t = setTimeout(done, ms);
      this.wake = done;
    });
  }

  private async run(): Promise<void> {
    // Logged on each change only: an operator sees which process relays, and when it took over or gave up.
    let state: 'active' | 'standing by' | null = null;
    const become = (next: 'active' | 'standing by') => {
      if (state !== next) this.log.info({ relay: this.checkpointName }, `kafka relay ${next}`);
      state = next;
    };
    while (this.running) {
      try {
        if (!(await this.at('acquiring the lock', this.lock.tryAcquire()))) {
          become('standing by');
          await this.at('standing by', this.sleep(1000)); // another relay is active: stand by
          continue;
        }
        become('active');
        await this.pump();
      } catch (e) {
        this.log.error({ err: e }, 'kafka relay failed; resuming from its checkpoint');
        await this.sleep(1000);
      }
    }
  }

  /**
   * Read → produce → checkpoint, as a pipeline: while the broker acknowledges batch n, batch n+1 is
   * read and turned into messages (JSON and sizes), and batch n-1's checkpoint is written. The
   * checkpoint still moves only after its own batch was acknowledged, and in order. Returns when
   * stopped or when the leader lock was lost.
   */
  private async pump(): Promise<void> {
    let pos = await readCheckpoint(this.knex, this.checkpointName);
    this.note(pos);
    const read = (after: LogPosition): Promise<PreparedBatch> => {
      const p = this.store.readAll({ after, limit: this.batchSize }).then((b) => ({ horizon: b.horizon, chunks: this.chunksOf(b.events) }));
      p.catch(() => undefined); // awaited below; this only keeps an abandoned prefetch from being "unhandled"
      return p;
    };
    let next = read(pos);
    let checkpointed: Promise<void> = Promise.resolve();
    let checkedAt = Date.now();
    try {
      while (this.running) {
        const batch = await this.at('reading', next);
        if (comparePositions(batch.horizon, pos) <= 0) {
          await this.at('checkpointing', checkpointed);
          await this.at('waiting for events', this.sleep(1000));
          if (!(await this.at('checking the lock', this.lock.check()))) return;
          checkedAt = Date.now();
          next = read(pos);
          continue;
        }
        // Busy too: a relay that never runs out of events must still notice that its lock went with its session
        // (then another relay may be active), within about a second.
        if (Date.now() - checkedAt >= LOCK_CHECK_MS) {
          if (!(await this.at('checking the lock', this.lock.check()))) return;
          checkedAt = Date.now();
        }
        next = read(batch.horizon);
        for (const chunk of batch.chunks) await this.at('producing', this.produce(chunk));
        await this.at('checkpointing', checkpointed);
        const horizon = batch.horizon;
        checkpointed = writeCheckpoint(this.knex, this.checkpointName, horizon).then(() => this.note(horizon));
        checkpointed.catch(() => undefined); // awaited on the next turn or below
        pos = horizon;
      }
    } finally {
      await checkpointed;
    }
  }

  /** Messages in requests of at most maxRequestBytes (value bytes, roughly: 200 for key, headers and framing). */
  private chunksOf(events: RecordedEvent[]): Message[][] {
    const chunks: Message[][] = [];
    let chunk: Message[] = [];
    let bytes = 0;
    for (const e of events) {
      const m = toMessage(e);
      const size = (m.value as string).length + 200;
      if (chunk.length && bytes + size > this.maxRequestBytes) {
        chunks.push(chunk);
        chunk = [];
        bytes = 0;
      }
      chunk.push(m);
      bytes += size;
    }
    if (chunk.length) chunks.push(chunk);
    return chunks;
  }

  private async produce(messages: Message[]): Promise<void> {
    await this.producer!.send({ topic: this.opts.topic, acks: -1, compression: CompressionTypes.None, messages });
    this.relayed += messages.length;
  }

  private note(pos: LogPosition): void {
    if (comparePositions(pos, this.position) > 0) {
      this.position = pos;
      this.progress.emit('progress');
    }
  }
}
