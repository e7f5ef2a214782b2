import type { Readable } from 'node:stream';

/** Content-addressed bytes: the key is the SHA-256 of the content (hex). */
export interface BlobStore {
  /** Stores bytes; returns their key and size. Storing the same bytes twice is a no-op. */
  put(content: Buffer): Promise<{ sha256: string; size: number }>;
  /** Streams a file's bytes in without holding them in memory; the key is computed while writing. */
  putStream(content: Readable): Promise<{ sha256: string; size: number }>;
  get(sha256: string): Promise<Buffer>;
  /**
   * Bytes [start, start + length) in one buffer, shorter at the end of the blob: for reads of a bounded
   * slice that is used whole (a text chunk), where a stream's chunks would only be joined again.
   */
  read(sha256: string, start: number, length: number): Promise<Buffer>;
  /** A byte range [start, end] inclusive, for Range requests. */
  stream(sha256: string, range?: { start: number; end: number }): Readable;
  has(sha256: string): Promise<boolean>;
  size(sha256: string): Promise<number>;
}
