import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { createKafka } from '../../infra/bus/kafka-client';
import { KafkaRelay } from '../../infra/bus/kafka-relay';
import { PostgresEventStore } from '../../infra/eventstore/postgres-event-store';
import { openDatabase } from '../../infra/postgres/database';
import { createLogger } from '../../src/util/logger';
import type { BenchContext, BenchRow, BenchScenario } from '../types';

const NAME = 'kafka-relay';

/** Appends `total` events in streams of 50, several writers at once, with catalog-sized payloads. */
async function appendEvents(knex: Knex, store: PostgresEventStore, total: number): Promise<void> {
  const perStream = 50;
  const streams = Math.ceil(total / perStream);
  let next = 0;
  const writer = async () => {
    for (let s = next++; s < streams; s = next++) {
      const events = Array.from({ length: perStream }, (_, i) => ({
        type: i === 0 ? 'BenchFilingRegistered' : 'BenchFilingAmended',
        data: { filingId: `f-${s}`, seq: i, state: 'FL', carrier: `carrier-${s % 997}`, title: `Homeowners rate filing ${s}/${i}`, note: 'x'.repeat(160) },
      }));
      await knex.transaction((trx) => store.appendWith(trx, `benchFiling-${s}`, events, 0, { actor: 'bench', tenantId: 't-bench' }));
    }
  };
  await Promise.all(Array.from({ length: 6 }, writer));
}

/**
 * Relay throughput: events already committed in Postgres, then the relay catches up from an empty
 * checkpoint to the head (read → produce with acks=all → checkpoint), timed end to end.
 */
export const scenario: BenchScenario = {
  name: NAME,
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const brokers = process.env.KAFKA_BROKERS?.split(',').map((s) => s.trim()).filter(Boolean);
    const goal = '>= 20000';
    if (!brokers?.length) {
      return [{ scenario: NAME, metric: 'relay events/s', value: 0, unit: 'events/s', goal, note: 'skipped: KAFKA_BROKERS not set (eval "$(infra/servers/kafka.sh start)")' }];
    }
    const total = ctx.quick ? 20_000 : 200_000;
    const log = createLogger('warn');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-bench-relay-'));
    const db = await openDatabase({ dataDir: dir, databaseUrl: process.env.DATABASE_URL || null, log, poolMax: 12 });
    const store = new PostgresEventStore(db.knex);
    const topic = `ifrs.bench.${Date.now()}`;
    const kafka = createKafka(brokers, log, 'ifrs-bench');
    const checkpointName = `relay:kafka:bench:${topic}`; // never the real relay's checkpoint on a shared DATABASE_URL
    const relays: KafkaRelay[] = [];
    try {
      ctx.log(`appending ${total} events`);
      const a0 = Date.now();
      await appendEvents(db.knex, store, total);
      const appendSecs = (Date.now() - a0) / 1000;
      const head = await store.head();
      ctx.log(`relaying to ${topic} on ${brokers.join(',')}`);
      const batchSize = Number(process.env.BENCH_RELAY_BATCH ?? 5000);
      const relay = new KafkaRelay(db.knex, store, kafka, log, { topic, partitions: 12, retentionMs: 3600_000, checkpointName, batchSize });
      relays.push(relay);
      const s0 = Date.now();
      await relay.start(); // topic creation and producer connect: reported apart from the throughput
      const startSecs = (Date.now() - s0) / 1000;
      const t0 = Date.now();
      await relay.waitFor(head, 600_000);
      const secs = (Date.now() - t0) / 1000;
      return [
        { scenario: NAME, metric: 'relay events/s', value: Math.round(total / secs), unit: 'events/s', goal, note: `${total} events already committed, catch-up from an empty checkpoint; batch ${batchSize}, acks=all, idempotent producer, 12 partitions` },
        { scenario: NAME, metric: 'relay start (topic + connect)', value: Math.round(startSecs * 1000), unit: 'ms' },
        { scenario: NAME, metric: 'append events/s (setup)', value: Math.round(total / appendSecs), unit: 'events/s', note: '6 writers, 50 events per append' },
      ];
    } finally {
      for (const r of relays) await r.stop();
      const admin = kafka.admin();
      await admin.connect();
      await admin.deleteTopics({ topics: [topic] }).catch(() => undefined);
      await admin.disconnect();
      await store.close();
      await db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
