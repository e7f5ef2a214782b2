/** Container identifiers: the names of the ports and services the composition root wires. */
export const TOKENS = {
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  Database: Symbol.for('Database'),
  Knex: Symbol.for('Knex'),
  /** The read pool (Database.readKnex): what requests read with, under the statement timeout. */
  ReadKnex: Symbol.for('ReadKnex'),
  Secret: Symbol.for('Secret'),
  EventStore: Symbol.for('EventStore'),
  Projector: Symbol.for('Projector'),
  ProjectionEngine: Symbol.for('ProjectionEngine'),
  CommandHandler: Symbol.for('CommandHandler'),
  Cursors: Symbol.for('Cursors'),
  Authenticator: Symbol.for('Authenticator'),
  RouteModule: Symbol.for('RouteModule'),
  IdentityCommands: Symbol.for('IdentityCommands'),
  Metrics: Symbol.for('Metrics'),
  BlobStore: Symbol.for('BlobStore'),
  FileIngest: Symbol.for('FileIngest'),
  RecordImporter: Symbol.for('RecordImporter'),
  Bus: Symbol.for('Bus'),
  /** Moves committed events onto the bus (Kafka relay); a no-op for the store-backed bus. */
  BusRelay: Symbol.for('BusRelay'),
  /** Multi-bound: the bus consumers the indexer role runs. */
  BusWorker: Symbol.for('BusWorker'),
  SearchIndex: Symbol.for('SearchIndex'),
  /** The Elasticsearch client, bound only with ELASTICSEARCH_URL (closed with the runtime). */
  Elasticsearch: Symbol.for('Elasticsearch'),
  Extractors: Symbol.for('Extractors'),
  SignedUrls: Symbol.for('SignedUrls'),
  /** Idempotency-Key answers, shared by every API host. */
  IdempotencyStore: Symbol.for('IdempotencyStore'),
  /** Where originals are stored: the BlobStore, or with S3 the bucket itself (whatever their size). */
  OriginalStore: Symbol.for('OriginalStore'),
  /** Presigned transfers on the storage host (S3), or null when the API serves its own signed addresses. */
  DirectTransfers: Symbol.for('DirectTransfers'),
} as const;
