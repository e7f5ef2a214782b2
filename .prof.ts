import fs from 'node:fs'; import os from 'node:os'; import path from 'node:path';
import { Partitioners } from 'kafkajs';
import { createKafka, ensureTopic } from './infra/bus/kafka-client';
import { toMessage } from './infra/bus/kafka-message';
import { PostgresEventStore } from './infra/eventstore/postgres-event-store';
import { openDatabase } from './infra/postgres/database';
import { createLogger } from './src/logger';
import { START } from './src/domain/events';
(async () => {
  const log = createLogger('warn');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-prof-'));
  const db = await openDatabase({ dataDir: dir, databaseUrl: null, log, poolMax: 12 });
  const store = new PostgresEventStore(db.knex, db.connectionString);
  for (let s = 0; s < 400; s++) await store.append(`x-${s}`, Array.from({ length: 50 }, (_, i) => ({ type: 'T', data: { s, i, note: 'x'.repeat(200) } })), 0, {});
  const kafka = createKafka(['127.0.0.1:19092'], log);
  const topic = 'prof' + Date.now();
  await ensureTopic(kafka, { topic, partitions: 12, retentionMs: 3600000 });
  const p = kafka.producer({ idempotent: true, createPartitioner: Partitioners.DefaultPartitioner, retry: { retries: Number.MAX_SAFE_INTEGER } });
  await p.connect();
  let pos = START;
  for (let k = 0; k < 4; k++) {
    let t = Date.now(); const r = await store.readAll({ after: pos, limit: 5000 }); const tr = Date.now() - t;
    t = Date.now(); const msgs = r.events.map(toMessage); const te = Date.now() - t;
    t = Date.now(); await p.send({ topic, acks: -1, messages: msgs }); const ts = Date.now() - t;
    console.log({ n: r.events.length, read: tr, encode: te, send: ts }); pos = r.horizon;
  }
  await p.disconnect(); await store.close(); await db.close(); fs.rmSync(dir, { recursive: true, force: true });
})();
