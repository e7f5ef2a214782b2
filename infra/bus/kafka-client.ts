import { Kafka, logLevel, type LogEntry } from 'kafkajs';
import type { Logger } from '../../src/util/logger';

/** Where the relay writes and consumers read; one topic for every event type (see README, "Production topology"). */
export interface KafkaTopicSettings {
  topic: string;
  /** Partitions when the relay creates the topic; the upper bound on consumers per group. */
  partitions: number;
  /** Topic retention; processed-id records of consumer groups are kept a day longer. */
  retentionMs: number;
}

export const DEFAULT_TOPIC: KafkaTopicSettings = { topic: 'ifrs.events', partitions: 12, retentionMs: 7 * 24 * 3600_000 };

/** A kafkajs client whose logs go through pino (kafkajs logs to the console by default). */
export function createKafka(brokers: string[], log: Logger, clientId = 'ifrs'): Kafka {
  const child = log.child({ component: 'kafkajs' });
  const logCreator = () => (entry: LogEntry) => {
    const { message, ...extra } = entry.log;
    if (entry.level === logLevel.ERROR) child.error(extra, message);
    else if (entry.level === logLevel.WARN) child.warn(extra, message);
    else if (entry.level === logLevel.INFO) child.debug(extra, message);
    else child.trace(extra, message);
  };
  return new Kafka({ clientId, brokers, logLevel: logLevel.WARN, logCreator, retry: { initialRetryTime: 200, retries: 8 } });
}

/**
 * Creates the topic if it is missing (no-op otherwise). Cleanup is `delete`, not `compact`: with the
 * stream id as key, compaction would keep only each stream's last event.
 */
export async function ensureTopic(kafka: Kafka, t: KafkaTopicSettings): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const existing = await admin.listTopics();
    if (existing.includes(t.topic)) return;
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        {
          topic: t.topic,
          numPartitions: t.partitions,
          configEntries: [
            { name: 'cleanup.policy', value: 'delete' },
            { name: 'retention.ms', value: String(t.retentionMs) },
            // Room for a large event: the relay sends at most ~4 MB per request.
            { name: 'max.message.bytes', value: String(10 * 1024 * 1024) },
          ],
        },
      ],
    });
  } finally {
    await admin.disconnect();
  }
}
