import 'reflect-metadata';
import { Container } from 'inversify';
import client from 'prom-client';
import { CommandHandler } from '../commands/command-handler';
import { BatchedAppender } from '../infra/eventstore/batched-appender';
import { PostgresEventStore } from '../infra/eventstore/postgres-event-store';
import { withUpcasting } from '../infra/eventstore/upcasting-event-store';
import { EVENT_UPCASTERS } from './domain/event-upcasters';
import type { Database } from '../infra/postgres/database';
import { ProjectionEngine } from '../projections/engine';
import type { Projector } from '../projections/projector';
import { Authenticator } from '../queries/identity/authenticator';
import type { Config } from './config';
import { FEATURES } from './features';
import { CursorService } from './http/cursors';
import type { Logger } from './util/logger';
import { TOKENS } from './ports/tokens';
import path from 'node:path';
import { FsBlobStore } from '../infra/blobs/fs-blob-store';
import { TieredBlobStore } from '../infra/blobs/tiered-blob-store';
import { BlobFileIngest } from '../infra/files/file-ingest';
import { PostgresSearchIndex } from '../infra/search/postgres-search-index';
import { SignedUrls } from './http/signed-urls';
import { StoreBackedBus } from '../infra/bus/store-backed-bus';
import type { BusRelay } from './ports/bus';
import { PostgresIdempotencyStore } from '../infra/idempotency/postgres-idempotency-store';

/*
 * The optional adapters (EventStoreDB, Kafka, Elasticsearch, S3) are required only in the branch that binds
 * them: their clients are some 15 MB of heap and 60 MB of RSS at startup, which the embedded default
 * would carry for nothing, and every collection's heap limit is a multiple of what is live.
 */
const esdbAdapter = () => require('../infra/eventstore/esdb-event-store') as typeof import('../infra/eventstore/esdb-event-store');
const kafkaAdapters = () => ({
  ...(require('../infra/bus/kafka-client') as typeof import('../infra/bus/kafka-client')),
  ...(require('../infra/bus/kafka-bus') as typeof import('../infra/bus/kafka-bus')),
  ...(require('../infra/bus/kafka-relay') as typeof import('../infra/bus/kafka-relay')),
});
const elasticsearchAdapter = () => ({
  ...(require('@elastic/elasticsearch') as typeof import('@elastic/elasticsearch')),
  ...(require('../infra/search/elasticsearch-search-index') as typeof import('../infra/search/elasticsearch-search-index')),
  ...(require('../infra/search/catalog-filing-records') as typeof import('../infra/search/catalog-filing-records')),
});
const s3Adapter = () => {
  // The SDK warns on stderr, at the first client, that its releases after January 2027 need Node 22; stderr is the
  // CLI's one-line-reason channel, and the project's Node is pinned in package.json (engines), so it stays quiet.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  return require('../infra/blobs/s3-blob-store') as typeof import('../infra/blobs/s3-blob-store');
};

/**
 * The composition root: the only place that chooses adapters. Services are plain classes with
 * constructor parameters; the container wires them, so nothing else knows which adapter it got.
 */
export function createContainer(config: Config, db: Database, secret: Buffer, log: Logger): Container {
  const c = new Container();
  c.bind(TOKENS.Logger).toConstantValue(log);
  c.bind(TOKENS.Knex).toConstantValue(db.knex);
  c.bind(TOKENS.ReadKnex).toConstantValue(db.readKnex);
  c.bind(TOKENS.Secret).toConstantValue(secret);
  c.bind(TOKENS.Metrics).toConstantValue(new client.Registry());
  // ESDB_URL moves the log to EventStoreDB; checkpoints, read models and bus bookkeeping stay in Postgres.
  // Read and written through the upcasters: projectors and deciders see every event at its current schema.
  c.bind(TOKENS.EventStore)
    .toDynamicValue(() => withUpcasting(config.esdbUrl ? new (esdbAdapter().EsdbEventStore)(config.esdbUrl) : new PostgresEventStore(db.knex), EVENT_UPCASTERS))
    .inSingletonScope();
  c.bind(ProjectionEngine)
    .toDynamicValue((ctx) => new ProjectionEngine(db.knex, ctx.get(TOKENS.EventStore), ctx.getAll<Projector>(TOKENS.Projector), log))
    .inSingletonScope();
  c.bind(CommandHandler)
    .toDynamicValue((ctx) => new CommandHandler(ctx.get(TOKENS.EventStore), ctx.get(ProjectionEngine), log, config.readYourWritesTimeoutMs))
    .inSingletonScope();
  // One BatchedAppender for every importer that uses it: they share its batches and its one-at-a-time flushes.
  c.bind(BatchedAppender).toDynamicValue((ctx) => new BatchedAppender(db.knex, ctx.get(TOKENS.EventStore), ctx.get(CommandHandler))).inSingletonScope();
  c.bind(CursorService).toDynamicValue(() => new CursorService(secret, db.knex)).inSingletonScope();
  c.bind(Authenticator).toDynamicValue(() => new Authenticator(db.knex)).inSingletonScope();
  bindBlobStore(c, config, db);
  // The text extractors (TOKENS.Extractors) are the files-and-search feature's: PDF, then plain text.
  c.bind(TOKENS.FileIngest)
    .toDynamicValue((ctx) => new BlobFileIngest(ctx.get(TOKENS.BlobStore), ctx.get(TOKENS.Extractors), ctx.get(TOKENS.OriginalStore)))
    .inSingletonScope();
  c.bind(SignedUrls).toDynamicValue(() => new SignedUrls(secret, config.publicBaseUrl)).inSingletonScope();
  // A claim outlives any request the service lets run (the read-your-writes wait is bounded); past it, its host is presumed gone.
  const leaseMs = config.idempotencyLeaseMs ?? Math.max(15_000, 2 * config.readYourWritesTimeoutMs + 5_000);
  c.bind(TOKENS.IdempotencyStore)
    .toDynamicValue(() => new PostgresIdempotencyStore(db.knex, { leaseMs }))
    .inSingletonScope();
  bindBus(c, config, db, log);
  bindSearchEngine(c, config);
  for (const install of FEATURES) install(c);
  return c;
}

/**
 * Blobs up to 256 KiB (extracted texts, mostly) in Postgres, larger ones under the data directory; the API
 * serves its own signed addresses. S3_BUCKET → the larger ones in the bucket instead, and every original and
 * upload there whatever its size, since downloads and uploads are presigned transfers on the storage host.
 * Small texts stay in the shared Postgres: the text route reads a chunk of one in its own statement and an
 * import writes thousands a second in batched inserts, where each would otherwise be an S3 request.
 */
function bindBlobStore(c: Container, config: Config, db: Database): void {
  if (!config.s3) {
    c.bind(TOKENS.BlobStore).toDynamicValue(() => new TieredBlobStore(db.knex, new FsBlobStore(path.join(config.dataDir, 'blobs')))).inSingletonScope();
    c.bind(TOKENS.OriginalStore).toDynamicValue((ctx) => ctx.get(TOKENS.BlobStore)).inSingletonScope();
    c.bind(TOKENS.DirectTransfers).toConstantValue(null);
    return;
  }
  const bucket = new (s3Adapter().S3BlobStore)(config.s3);
  c.bind(TOKENS.BlobStore).toConstantValue(new TieredBlobStore(db.knex, bucket));
  c.bind(TOKENS.OriginalStore).toConstantValue(bucket);
  c.bind(TOKENS.DirectTransfers).toConstantValue(bucket);
}

/**
 * Postgres full-text search by default; ELASTICSEARCH_URL → the Elasticsearch SearchIndex instead. The search
 * projector and the endpoint (files-and-search feature) take whichever is bound; the projector's version
 * follows the adapter, so switching rebuilds the search projection from the log.
 */
function bindSearchEngine(c: Container, config: Config): void {
  if (!config.elasticsearchUrl) {
    c.bind(TOKENS.Elasticsearch).toConstantValue(null);
    c.bind(TOKENS.SearchIndex).toDynamicValue((ctx) => new PostgresSearchIndex(ctx.get(TOKENS.ReadKnex))).inSingletonScope();
    return;
  }
  const { Client, ElasticsearchSearchIndex, CatalogFilingRecords } = elasticsearchAdapter();
  const client = new Client({ node: config.elasticsearchUrl });
  c.bind(TOKENS.Elasticsearch).toConstantValue(client);
  c.bind(TOKENS.SearchIndex)
    // Results' records from the catalog read model (same database): cheaper than the filing documents' copy.
    .toDynamicValue((ctx) => new ElasticsearchSearchIndex(client, {
      alias: config.elasticsearchIndex,
      records: new CatalogFilingRecords(ctx.get(TOKENS.ReadKnex)),
    }))
    .inSingletonScope();
}

/**
 * KAFKA_BROKERS → the Kafka bus plus its relay (started by the projector and all roles, see
 * server.ts); otherwise the store-backed bus, which reads the event store directly and needs no relay.
 */
function bindBus(c: Container, config: Config, db: Database, log: Logger): void {
  if (!config.kafkaBrokers) {
    c.bind(TOKENS.Bus).toDynamicValue((ctx) => new StoreBackedBus(db.knex, ctx.get(TOKENS.EventStore), log)).inSingletonScope();
    c.bind(TOKENS.BusRelay).toConstantValue({ start: async () => undefined, stop: async () => undefined } satisfies BusRelay);
    return;
  }
  const { createKafka, DEFAULT_TOPIC, KafkaBus, KafkaRelay } = kafkaAdapters();
  const kafka = createKafka(config.kafkaBrokers, log);
  const topic = { ...DEFAULT_TOPIC, topic: config.kafkaTopic };
  c.bind(TOKENS.Bus).toDynamicValue(() => new KafkaBus(db.knex, kafka, log, topic)).inSingletonScope();
  c.bind(TOKENS.BusRelay).toDynamicValue((ctx) => new KafkaRelay(db.knex, ctx.get(TOKENS.EventStore), kafka, log, topic)).inSingletonScope();
}
