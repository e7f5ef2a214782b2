import type { Knex } from 'knex';
import type { Consumer as KafkaConsumer, EachBatchPayload, Kafka } from 'kafkajs';
import type { RecordedEvent } from '../../src/domain/events';
import type { Logger } from '../../src/util/logger';
import type { Bus, Consumer } from '../../src/ports/bus';
import { ensureTopic, type KafkaTopicSettings } from './kafka-client';
import { fromMessageValue, messageType } from './kafka-message';
import { ProcessedEvents } from './processed-events';

export interface KafkaBusOptions extends KafkaTopicSettings {
  /** Events per handler call (offsets are committed after each call). */
  batchSize?: number;
  /** Consumer group liveness: a killed member's partitions move after this long. */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** First wait before redelivering to a handler that threw; doubles up to maxRetryDelayMs. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** Consumer group ids are `${groupPrefix}${group}`. */
  groupPrefix?: string;
}

/**
 * The Kafka adapter of the Bus port, consumer side (events reach the topic through KafkaRelay).
 * Each `consume` is one member of the Kafka consumer group, so processes with the same group split
 * the partitions and take over from each other. Delivery is at least once:
 *   1. messages of other types are skipped (by header) but their offsets are committed;
 *   2. events whose id the group already recorded in bus_processed_events are dropped (relay resends,
 *      rebalances that hand over uncommitted offsets);
 *   3. the handler runs; if it throws, the same events are retried with backoff (never skipped);
 *   4. the event ids are recorded, then the offset is committed.
 * A crash between 3 and 4 delivers those events again, so handlers must be idempotent; a crash
 * between 4 and the commit is absorbed by step 2. Order: per stream (the key), not global.
 */
export class KafkaBus implements Bus {
  private readonly consumers = new Set<Consumer>();
  private readonly processed: ProcessedEvents;

  constructor(
    knex: Knex,
    private readonly kafka: Kafka,
    private readonly log: Logger,
    private readonly opts: KafkaBusOptions,
  ) {
    this.processed = new ProcessedEvents(knex);
  }

  async consume(group: string, types: readonly string[], handler: (events: RecordedEvent[]) => Promise<void>): Promise<Consumer> {
    const wanted = new Set(types);
    const consumer = this.kafka.consumer({
      groupId: `${this.opts.groupPrefix ?? 'ifrs.'}${group}`,
      sessionTimeout: this.opts.sessionTimeoutMs ?? 30_000,
      rebalanceTimeout: Math.max(this.opts.sessionTimeoutMs ?? 30_000, 10_000),
      heartbeatInterval: this.opts.heartbeatIntervalMs ?? 3000,
      maxWaitTimeInMs: 500,
      allowAutoTopicCreation: false,
    });
    // An indexer may start before any relay created the topic: subscribing to a missing one fails.
    await ensureTopic(this.kafka, this.opts);
    await consumer.connect();
    await consumer.subscribe({ topics: [this.opts.topic], fromBeginning: true });
    let stopped = false;
    await consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.handleBatch(consumer, group, wanted, handler, payload, () => stopped),
    });
    // Processed ids outlive the topic's retention by a day; older ones cannot be redelivered.
    const pruneEvery = setInterval(() => {
      this.processed.prune(this.opts.retentionMs + 24 * 3600_000).catch((e) => this.log.warn({ err: e, group }, 'pruning processed event ids failed'));
    }, 3600_000);
    pruneEvery.unref();
    const handle: Consumer = {
      stop: async () => {
        if (stopped) return;
        stopped = true;
        clearInterval(pruneEvery);
        await consumer.disconnect();
        this.consumers.delete(handle);
      },
    };
    this.consumers.add(handle);
    return handle;
  }

  private async handleBatch(
    consumer: KafkaConsumer,
    group: string,
    wanted: Set<string>,
    handler: (events: RecordedEvent[]) => Promise<void>,
    { batch, heartbeat, isRunning, isStale, resolveOffset }: EachBatchPayload,
    stopped: () => boolean,
  ): Promise<void> {
    const size = this.opts.batchSize ?? 500;
    const commit = async (offset: string) => {
      resolveOffset(offset);
      await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: (BigInt(offset) + 1n).toString() }]);
    };
    for (let i = 0; i < batch.messages.length; i += size) {
      if (!isRunning() || isStale() || stopped()) return; // uncommitted: redelivered to whoever owns the partition next
      const slice = batch.messages.slice(i, i + size);
      const candidates: RecordedEvent[] = [];
      const inSlice = new Set<string>();
      for (const m of slice) {
        const type = messageType(m.headers);
        if (type === null || !wanted.has(type) || !m.value) continue;
        const e = fromMessageValue(m.value);
        if (inSlice.has(e.eventId)) continue; // a relay resend can land in the same fetch
        inSlice.add(e.eventId);
        candidates.push(e);
      }
      const seen = await this.processed.seen(group, candidates.map((e) => e.eventId));
      const fresh = candidates.filter((e) => !seen.has(e.eventId));
      if (fresh.length) {
        const ok = await this.runWithRetry(group, fresh, handler, () => isRunning() && !isStale() && !stopped(), heartbeat);
        if (!ok) return;
        await this.processed.record(group, fresh.map((e) => e.eventId));
      }
      await commit(slice[slice.length - 1].offset);
      await heartbeat();
    }
  }

  /** Calls the handler until it succeeds; false if the consumer stopped or lost the partition meanwhile. */
  private async runWithRetry(
    group: string,
    events: RecordedEvent[],
    handler: (events: RecordedEvent[]) => Promise<void>,
    active: () => boolean,
    heartbeat: () => Promise<void>,
  ): Promise<boolean> {
    let delay = this.opts.retryDelayMs ?? 500;
    for (let attempt = 1; ; attempt++) {
      try {
        await handler(events);
        return true;
      } catch (e) {
        this.log.error({ err: e, group, attempt, firstEventId: events[0].eventId, events: events.length }, 'bus handler failed; redelivering');
      }
      const until = Date.now() + delay;
      while (Date.now() < until) {
        if (!active()) return false;
        await heartbeat(); // keep the partition while waiting
        await new Promise((r) => setTimeout(r, Math.min(200, until - Date.now())));
      }
      if (!active()) return false;
      delay = Math.min(delay * 2, this.opts.maxRetryDelayMs ?? 30_000);
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.consumers].map((c) => c.stop()));
  }
}
