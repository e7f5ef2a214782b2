import type { ServiceIdentifier } from 'inversify';
import type { Knex } from 'knex';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Client as ElasticsearchClient } from '@elastic/elasticsearch';
import type { BlobStore } from './blob-store';
import type { Bus, BusRelay, BusWorker } from './bus';
import type { DirectTransfers } from './direct-transfers';
import type { EventStore } from './event-store';
import type { Extractor, FileIngest } from './file-ingest';
import type { IdempotencyStore } from './idempotency-store';
import type { SearchIndex } from './search-index';

/** A container identifier that carries the type of what it names: `container.get(TOKENS.Bus)` is a Bus. */
const id = <T>(name: string): ServiceIdentifier<T> => Symbol.for(name);

/**
 * Container identifiers: the one registry of what the composition root (src/container.ts, src/features)
 * binds by name. Services that are classes (CommandHandler, ProjectionEngine, IdentityCommands,
 * ManagedFilingCommands, UploadCommands, FilingAccessService, ReferenceLookups, BatchedAppender,
 * Authenticator, CursorService, SignedUrls) are their own identifiers: `container.get(CommandHandler)`.
 */
export const TOKENS = {
  Logger: id<Logger>('Logger'),
  Knex: id<Knex>('Knex'),
  /** The read pool (Database.readKnex): what requests read with, under the statement timeout. */
  ReadKnex: id<Knex>('ReadKnex'),
  Secret: id<Buffer>('Secret'),
  Metrics: id<Registry>('Metrics'),
  EventStore: id<EventStore>('EventStore'),
  BlobStore: id<BlobStore>('BlobStore'),
  /** Where originals are stored: the BlobStore, or with S3 the bucket itself (whatever their size). */
  OriginalStore: id<BlobStore>('OriginalStore'),
  /** Presigned transfers on the storage host (S3), or null when the API serves its own signed addresses. */
  DirectTransfers: id<DirectTransfers | null>('DirectTransfers'),
  FileIngest: id<FileIngest>('FileIngest'),
  /** Text extractors in order of preference (PDF, then plain text). */
  Extractors: id<Extractor[]>('Extractors'),
  Bus: id<Bus>('Bus'),
  /** Moves committed events onto the bus (Kafka relay); a no-op for the store-backed bus. */
  BusRelay: id<BusRelay>('BusRelay'),
  /** Multi-bound: the bus consumers the indexer role runs. */
  BusWorker: id<BusWorker>('BusWorker'),
  SearchIndex: id<SearchIndex>('SearchIndex'),
  /** The Elasticsearch client with ELASTICSEARCH_URL (closed with the runtime), null without. */
  Elasticsearch: id<ElasticsearchClient | null>('Elasticsearch'),
  /** Idempotency-Key answers, shared by every API host. */
  IdempotencyStore: id<IdempotencyStore>('IdempotencyStore'),
  /*
   * Multi-bound plug-ins whose contracts live in their own layers, above the ports: say the type where
   * they are read (`getAll<Projector>(TOKENS.Projector)`).
   */
  /** Projectors (projections/projector.ts), which the projection engine runs. */
  Projector: Symbol.for('Projector'),
  /** Route modules (src/http/route.ts), which the HTTP app mounts. */
  RouteModule: Symbol.for('RouteModule'),
  /** Importers of record types (commands/import/record-importer.ts), which `ifrs import` dispatches to. */
  RecordImporter: Symbol.for('RecordImporter'),
} as const;
