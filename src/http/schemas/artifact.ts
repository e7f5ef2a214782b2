import { z } from '../zod';

const str = z.string();
const nullableStr = z.string().nullable();
const timestamp = z.string().openapi({ format: 'date-time' });

/**
 * The OpenAPI description of artifactRecord (the contract's artifact, src/read-models/artifacts/artifact-record.ts):
 * it validates nothing at run time; every field is listed as present, the unmodelled ones as null (DESIGN: never omitted).
 */
export const Artifact = z
  .object({
    id: z.string().openapi({ format: 'uuid' }),
    name: str,
    nodeKind: z.literal('file'),
    isIndexed: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
    type: str,
    data: z.object({
      id: str,
      name: str,
      size: z.number().int(),
      mimeType: str,
      path: str,
      storageInfo: z.object({ location: str, object: str, url: nullableStr }),
      pageCount: z.number().int().nullable(),
      totalPages: z.number().int().nullable(),
      pageMapPath: nullableStr,
      extractionMethod: nullableStr,
      lastModified: timestamp,
      contentVersion: z.number().int().min(1),
      indexed: z.boolean(),
    }),
    parentId: nullableStr,
    tags: z.array(str),
    metadata: z.object({
      facetSchema: z.object({ stringFacet1: nullableStr, stringFacet2: nullableStr, stringFacet3: nullableStr }),
      description: nullableStr,
    }),
    orgId: str,
    path: str,
    relativePath: str,
    extractedTextPath: nullableStr,
    stringFacet1: nullableStr,
    stringFacet2: nullableStr,
    stringFacet3: nullableStr,
    createdBy: str,
    sessionId: nullableStr,
    storageScopeId: z.string().openapi({ format: 'uuid' }),
    immutableContent: z.boolean(),
    contentSha256: str,
    visibility: z.literal('org'),
    visibleTo: z.array(str),
    currentVersion: z.object({ id: z.string().openapi({ format: 'uuid' }), versionNumber: z.number().int().min(1), contentSha256: str, createdAt: timestamp }),
  })
  .openapi('Artifact');
