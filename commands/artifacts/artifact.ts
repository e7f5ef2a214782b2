import { assertNever, type Decider } from '../../src/domain/decider';
import { DomainError } from '../../src/domain/errors';
import type { ArtifactEvent, ArtifactVersion, ReceivedUpload } from '../../src/domain/events/artifacts';
import { evolveArtifact, initialArtifactState, type ArtifactState } from '../../src/domain/artifact-state';

/**
 * A working file (stream `artifact-<uuid>`): uploads received through signed addresses, versions
 * created by upload completion (numbered from 1), and the indexing worker's results per version.
 */

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

/** A per-file failure of upload completion: the code goes into the 200's result, not an HTTP status. */
export class UploadFailure extends DomainError {
  constructor(code: 'UPLOAD_NOT_FOUND' | 'UPLOAD_SIZE_MISMATCH' | 'PERMISSION_DENIED' | 'UPLOAD_TOKEN_INVALID' | 'UPLOAD_TOKEN_EXPIRED' | 'UPLOAD_NAME_INVALID', message: string) {
    super(code, message, 400);
  }
}

export const artifactDecider: Decider<ArtifactState, ArtifactCommand, ArtifactEvent> = {
  initialState: initialArtifactState,
  evolve: evolveArtifact,

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
