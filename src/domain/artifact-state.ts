import { assertNever } from './decider';
import type { ArtifactEvent, ArtifactVersion, ReceivedUpload } from './events/artifacts';

/** A working file folded from its stream: what upload completion decides on and the artifact record shows. */
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

export function initialArtifactState(): ArtifactState {
  return { exists: false, id: null, scope: null, scopeId: null, tenantId: null, name: null, createdBy: null, createdAt: null, updatedAt: null, uploads: {}, versions: [] };
}

export function evolveArtifact(state: ArtifactState, event: ArtifactEvent): ArtifactState {
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
}

export function currentVersion(state: ArtifactState): ArtifactVersion | null {
  return state.versions.length ? state.versions[state.versions.length - 1] : null;
}
