import { KafkaBus, type KafkaBusOptions } from '../../infra/bus/kafka-bus';
import { createKafka } from '../../infra/bus/kafka-client';
import { StoreBackedBus } from '../../infra/bus/store-backed-bus';
import { PostgresEventStore } from '../../infra/eventstore/postgres-event-store';
import { openDatabase } from '../../infra/postgres/database';
import { createLogger } from '../../src/util/logger';
import type { Bus } from '../../src/ports/bus';

/** Kafka consumer settings for tests: a killed member's partitions move after ~6 s (the broker's minimum). */
export function testKafkaBusOptions(topic: string): KafkaBusOptions {
  return { topic, partitions: 4, retentionMs: 3600_000, sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, retryDelayMs: 200, maxRetryDelayMs: 1000 };
}

/**
 * Builds a bus adapter from environment variables, so a child process (bus-consumer-child.ts) can
 * run the same adapter as the test that spawned it: BUS_ADAPTER=store|kafka, DATABASE_URL, and for
 * Kafka KAFKA_BROKERS and KAFKA_TOPIC.
 */
export async function busFromEnv(env: NodeJS.ProcessEnv): Promise<{ bus: Bus; close(): Promise<void> }> {
  const log = createLogger(env.BUS_LOG_LEVEL ?? 'silent');
  const db = await openDatabase({ dataDir: '/nonexistent', databaseUrl: env.DATABASE_URL!, log, poolMax: 5, migrate: false });
  const store = new PostgresEventStore(db.knex);
  let bus: Bus;
  if (env.BUS_ADAPTER === 'kafka') {
    const kafka = createKafka(env.KAFKA_BROKERS!.split(','), log);
    bus = new KafkaBus(db.knex, kafka, log, testKafkaBusOptions(env.KAFKA_TOPIC!));
  } else {
    bus = new StoreBackedBus(db.knex, store, log, 50);
  }
  return {
    bus,
    close: async () => {
      await bus.close();
      await store.close();
      await db.close();
    },
  };
}
