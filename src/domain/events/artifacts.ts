/**
 * Artifact events (stream `artifact-<uuid>`, a working file): uploads received through signed addresses,
 * versions created by upload completion, and the indexing worker's results per version.
 */

export interface ArtifactVersion {
  id: string;
  versionNumber: number;
  contentSha256: string;
  size: number;
  mimeType: string;
  name: string;
  createdAt: string;
  createdBy: string;
  /** Null until the indexing worker processed the version; `text` null when no extractor could read the type. */
  indexed: null | { text: null | { sha256: string; byteLength: number; pageCount: number; pageStarts: number[]; method: string }; indexedAt: string };
}

export interface ReceivedUpload {
  uploadId: string;
  contentSha256: string;
  size: number;
  receivedAt: string;
}

export type ArtifactEvent =
  | { type: 'ArtifactUploadReceived'; data: { artifactId: string; upload: ReceivedUpload } }
  | { type: 'ArtifactCreated'; data: { artifactId: string; scope: string; scopeId: string; tenantId: string; name: string; createdBy: string; createdAt: string } }
  | { type: 'ArtifactVersionAdded'; data: { artifactId: string; uploadId: string; version: Omit<ArtifactVersion, 'indexed'> } }
  | {
      type: 'ArtifactVersionIndexed';
      data: { artifactId: string; versionId: string; text: NonNullable<ArtifactVersion['indexed']>['text']; indexedAt: string };
    };
