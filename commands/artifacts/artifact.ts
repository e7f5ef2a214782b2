import { assertNever, type Decider } from '../../src/domain/decider';
import { DomainError } from '../../src/domain/errors';

/**
 * A working file (stream `artifact-<uuid>`): uploads received through signed addresses, versions
 * created by upload completion (numbered from 1), and the indexing worker's results per version.
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

export const ARTIFACT_EVENT_TYPES: ArtifactEvent['type'][] = ['ArtifactUploadReceived', 'ArtifactCreated', 'ArtifactVersionAdded', 'ArtifactVersionIndexed'];

export type ArtifactCommand =
  | { type: 'ReceiveUpload'; artifactId: string; upload: ReceivedUpload }
  | {
      type: 'CompleteUpload';
      artifactId: string;
      uploadId: string;
      versionId: string;
      scope: string;
      scopeId: string;
      tenantId: string;
      name: string;
      mimeType: string;
      actor: string;
      now: string;
    }
  | { type: 'RecordIndexing'; versionId: string; text: NonNullable<ArtifactVersion['indexed']>['text']; now: string };

export interface ArtifactState {
  exists: boolean;
  id: string | null;
  scope: string | null;
  scopeId: string | null;
  tenantId: string | null;
  name: string | null;
  createdBy: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  uploads: Record<string, ReceivedUpload>;
  versions: ArtifactVersion[];
}

/** A per-file failure of upload completion: the code goes into the 200's result, not an HTTP status. */
export class UploadFailure extends DomainError {
  constructor(code: 'UPLOAD_NOT_FOUND' | 'UPLOAD_SIZE_MISMATCH' | 'PERMISSION_DENIED' | 'UPLOAD_TOKEN_INVALID' | 'UPLOAD_TOKEN_EXPIRED' | 'UPLOAD_NAME_INVALID', message: string) {
    super(code, message, 400);
  }
}

export const artifactDecider: Decider<ArtifactState, ArtifactCommand, ArtifactEvent> = {
  initialState: () => ({ exists: false, id: null, scope: null, scopeId: null, tenantId: null, name: null, createdBy: null, createdAt: null, updatedAt: null, uploads: {}, versions: [] }),

  evolve(state, event) {
    switch (event.type) {
      case 'ArtifactUploadReceived':
        return { ...state, uploads: { ...state.uploads, [event.data.upload.uploadId]: event.data.upload } };
      case 'ArtifactCreated': {
        const d = event.data;
        return { ...state, exists: true, id: d.artifactId, scope: d.scope, scopeId: d.scopeId, tenantId: d.tenantId, name: d.name, createdBy: d.createdBy, createdAt: d.createdAt, updatedAt: d.createdAt };
      }
      case 'ArtifactVersionAdded': {
        const v = event.data.version;
        return { ...state, name: v.name, updatedAt: v.createdAt, versions: [...state.versions, { ...v, indexed: null }] };
      }
      case 'ArtifactVersionIndexed':
        return {
          ...state,
          versions: state.versions.map((v) => (v.id === event.data.versionId ? { ...v, indexed: { text: event.data.text, indexedAt: event.data.indexedAt } } : v)),
        };
      default:
        return assertNever(event);
    }
  },

  decide(state, cmd) {
    switch (cmd.type) {
      case 'ReceiveUpload':
        // A repeated PUT of the same address replaces what completion will take (the last bytes win).
        return [{ type: 'ArtifactUploadReceived', data: { artifactId: cmd.artifactId, upload: cmd.upload } }];
      case 'CompleteUpload': {
        const upload = state.uploads[cmd.uploadId];
        if (!upload) throw new UploadFailure('UPLOAD_NOT_FOUND', 'No bytes were uploaded to this upload address yet; PUT the file to uploadUrl first.');
        if (state.exists && (state.scopeId !== cmd.scopeId || state.tenantId !== cmd.tenantId)) {
          throw new UploadFailure('PERMISSION_DENIED', 'The artifact belongs to another scope.');
        }
        const events: ArtifactEvent[] = [];
        if (!state.exists) {
          events.push({
            type: 'ArtifactCreated',
            data: { artifactId: cmd.artifactId, scope: cmd.scope, scopeId: cmd.scopeId, tenantId: cmd.tenantId, name: cmd.name, createdBy: cmd.actor, createdAt: cmd.now },
          });
        }
        // Completion is not idempotent (contract): a replay adds another version of the same bytes.
        events.push({
          type: 'ArtifactVersionAdded',
          data: {
            artifactId: cmd.artifactId,
            uploadId: cmd.uploadId,
            version: {
              id: cmd.versionId,
              versionNumber: state.versions.length + 1,
              contentSha256: upload.contentSha256,
              size: upload.size,
              mimeType: cmd.mimeType,
              name: cmd.name,
              createdAt: cmd.now,
              createdBy: cmd.actor,
            },
          },
        });
        return events;
      }
      case 'RecordIndexing': {
        const v = state.versions.find((x) => x.id === cmd.versionId);
        if (!v) throw new DomainError('not_found', `no version ${cmd.versionId}`, 404);
        // At-least-once delivery: a redelivered version event finds it indexed and appends nothing.
        if (v.indexed) return [];
        return [{ type: 'ArtifactVersionIndexed', data: { artifactId: state.id!, versionId: v.id, text: cmd.text, indexedAt: cmd.now } }];
      }
      default:
        return assertNever(cmd);
    }
  },
};

export function currentVersion(state: ArtifactState): ArtifactVersion | null {
  return state.versions.length ? state.versions[state.versions.length - 1] : null;
}
