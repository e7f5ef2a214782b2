/**
 * Transfers straight between a client and the storage host, for a blob store that can sign addresses there
 * (S3): the API host then hands out addresses instead of carrying the bytes. Bound to null for the filesystem
 * store, whose signed addresses are the API's own (src/http/signed-urls.ts).
 */
export interface DirectTransfers {
  /** Creates what the storage needs (the bucket) when it is missing; called once at start. */
  ensureReady(): Promise<void>;
  /** An absolute, presigned GET of a blob that is answered with these headers. */
  downloadUrl(sha256: string, response: { contentType: string; contentDisposition: string }, ttlSeconds: number): Promise<string>;
  /** An absolute, presigned PUT of one upload's bytes (kept apart from the content-addressed blobs until completion). */
  uploadUrl(uploadId: string, ttlSeconds: number): Promise<string>;
  /** The size of what was PUT to an upload's address; null when nothing was. */
  uploadSize(uploadId: string): Promise<number | null>;
  /**
   * Reads an upload's bytes back, hashing them as they stream, and stores them under their SHA-256. Null when
   * the object is gone or was replaced while it was read (the caller reports it as not uploaded).
   */
  claimUpload(uploadId: string): Promise<{ sha256: string; size: number } | null>;
  /** Removes an upload's bytes once completion has recorded them under their content address. */
  discardUpload(uploadId: string): Promise<void>;
  close(): Promise<void>;
}
