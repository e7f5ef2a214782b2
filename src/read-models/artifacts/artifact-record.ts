import { type ArtifactState, currentVersion } from '../../domain/artifact-state';

/** The facts the contract's artifact record is made of, from decided state or from the read model. */
export interface ArtifactView {
  id: string;
  scope: string;
  scopeId: string;
  tenantId: string;
  name: string;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  version: {
    id: string;
    versionNumber: number;
    contentSha256: string;
    size: number;
    mimeType: string;
    createdAt: string;
    indexed: boolean;
    textSha256: string | null;
    pageCount: number | null;
    extractionMethod: string | null;
  };
}

const iso = (v: Date | string) => new Date(v).toISOString();

export function viewFromState(s: ArtifactState): ArtifactView {
  const v = currentVersion(s)!;
  return {
    id: s.id!,
    scope: s.scope!,
    scopeId: s.scopeId!,
    tenantId: s.tenantId!,
    name: s.name!,
    createdBy: s.createdBy!,
    createdAt: s.createdAt!,
    updatedAt: s.updatedAt!,
    version: {
      id: v.id,
      versionNumber: v.versionNumber,
      contentSha256: v.contentSha256,
      size: v.size,
      mimeType: v.mimeType,
      createdAt: v.createdAt,
      indexed: v.indexed !== null,
      textSha256: v.indexed?.text?.sha256 ?? null,
      pageCount: v.indexed?.text?.pageCount ?? null,
      extractionMethod: v.indexed?.text?.method ?? null,
    },
  };
}

export function viewFromRow(r: Record<string, any>): ArtifactView {
  return {
    id: r.id,
    scope: r.scope,
    scopeId: r.scope_id,
    tenantId: r.tenant_id,
    name: r.name,
    createdBy: r.created_by,
    createdAt: iso(r.created_at),
    updatedAt: iso(r.updated_at),
    version: {
      id: r.version_id,
      versionNumber: r.version_number,
      contentSha256: r.content_sha256,
      size: Number(r.size),
      mimeType: r.mime_type,
      createdAt: iso(r.version_created_at),
      indexed: r.indexed,
      textSha256: r.text_sha256,
      pageCount: r.page_count,
      extractionMethod: r.extraction_method,
    },
  };
}

/**
 * The contract's "Upload completion result" artifact, every field present. Facets, tags, parent and
 * session are not modelled by this service: they are null / [] (nullable fields are never omitted).
 */
export function artifactRecord(a: ArtifactView) {
  const v = a.version;
  const path = `/${a.scope}/${a.name}`;
  return {
    id: a.id,
    name: a.name,
    nodeKind: 'file' as const,
    isIndexed: v.indexed,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
    type: v.mimeType,
    data: {
      id: a.id,
      name: a.name,
      size: v.size,
      mimeType: v.mimeType,
      path,
      storageInfo: { location: 'blob-store', object: `sha256/${v.contentSha256}`, url: null },
      pageCount: v.pageCount,
      totalPages: v.pageCount,
      pageMapPath: null,
      extractionMethod: v.extractionMethod,
      lastModified: v.createdAt,
      contentVersion: v.versionNumber,
      indexed: v.indexed,
    },
    parentId: null,
    tags: [] as string[],
    metadata: { facetSchema: { stringFacet1: null, stringFacet2: null, stringFacet3: null }, description: null },
    orgId: a.tenantId,
    path,
    relativePath: a.name,
    extractedTextPath: v.textSha256 ? `sha256/${v.textSha256}` : null,
    stringFacet1: null,
    stringFacet2: null,
    stringFacet3: null,
    createdBy: a.createdBy,
    sessionId: null,
    storageScopeId: a.scopeId,
    immutableContent: false,
    contentSha256: v.contentSha256,
    visibility: 'org' as const,
    visibleTo: [a.scope],
    currentVersion: { id: v.id, versionNumber: v.versionNumber, contentSha256: v.contentSha256, createdAt: v.createdAt },
  };
}
