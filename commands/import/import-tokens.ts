/** Container identifiers of the import machinery (kept out of src/ports/tokens.ts so features add them without touching it). */
export const IMPORT_TOKENS = {
  /** The shared BatchedAppender: every importer that uses it shares its batches and its one-at-a-time flushes. */
  BatchedAppender: Symbol.for('BatchedAppender'),
} as const;
