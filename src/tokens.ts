/** Container identifiers: the names of the ports and services the composition root wires. */
export const TOKENS = {
  Config: Symbol.for('Config'),
  Logger: Symbol.for('Logger'),
  Database: Symbol.for('Database'),
  Knex: Symbol.for('Knex'),
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
} as const;
