import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { requestBaseUrl } from '../../src/http/signed-urls';
import { ScopeString, Uuid } from '../../queries/managed-filings/schemas';
import { Artifact } from '../../queries/artifacts/artifact-record';
import { MAX_UPLOAD_BYTES, type UploadCommands } from './upload-commands';

const BeginBody = z
  .strictObject({
    scope: ScopeString,
    // A pattern, not a refine: the document states it (NUL is refused for every text by the input hygiene step).
    name: z.string().min(1).max(255).regex(/^[^/\\]*$/, 'A file name has no slashes.'),
    mimeType: z.string().regex(/^[\w.+-]+\/[\w.+-]+$/, 'Must be a media type such as application/pdf.').max(255),
    size: z.number().int().min(0).max(MAX_UPLOAD_BYTES),
    artifactId: Uuid.optional(),
  })
  .openapi('BeginUpload');
const BeginReply = z.object({ uploadToken: z.string(), uploadUrl: z.string(), expiresAt: z.string() }).openapi('UploadAddress');

// Any string is a token to check: an empty, foreign or altered one is a per-file UPLOAD_TOKEN_INVALID inside the 200
// (DESIGN.md), never a 400 that would hide the other confirmations' results. The 1 MiB body bounds its length.
const CompleteBody = z.strictObject({ confirmations: z.array(z.strictObject({ uploadToken: z.string() })).min(1).max(100) }).openapi('UploadConfirmations');
const CompletionResult = z
  .object({
    uri: z.string(),
    success: z.boolean(),
    // Nullable fields are present as null (DESIGN.md): `artifact` on a failure, `error` on a success.
    artifact: Artifact.nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .openapi('UploadCompletionResultItem');

/** POST /files/uploads (extension), PUT to the signed upload address (extension), POST /files/uploads/complete. */
export class UploadRoutes implements RouteModule {
  constructor(private readonly uploads: UploadCommands) {}

  routes() {
    return [
      defineRoute({
        method: 'post',
        paths: ['/files/uploads'],
        operationId: 'startFileUpload',
        idempotencyKey: 'honored',
        summary: 'Request a signed upload address',
        extension: true,
        description:
          'Needs editor or manager role in the scope and an ordinary key (read-only keys: 403). Give artifactId to upload a new version of an existing artifact of that scope. The token and the address are valid for one hour; PUT the raw bytes (exactly `size` of them) to uploadUrl without the API key, then complete. With object storage (S3_BUCKET) uploadUrl is a presigned SigV4 PUT on the storage host.',
        tags: ['files'],
        body: BeginBody,
        responses: { 201: { description: 'The upload token and signed address', schema: BeginReply } },
        handler: async ({ principal, body, req }) => ({ status: 201, body: await this.uploads.begin(principal, body, requestBaseUrl(req)) }),
      }),
      defineRoute({
        method: 'put',
        paths: ['/signed/uploads/{token}'],
        operationId: 'putSignedUpload',
        summary: 'Signed upload address (raw bytes)',
        extension: true,
        auth: 'none',
        rawBody: true,
        description: 'Works without the API key; refused (403) when expired or altered; 413 when more bytes than declared arrive, 400 when fewer.',
        tags: ['files'],
        params: z.strictObject({ token: z.string() }),
        query: z.strictObject({ expires: z.string().optional(), signature: z.string().optional() }),
        responses: { 200: { description: 'The bytes were stored', schema: z.object({ uploadId: z.string(), size: z.number(), contentSha256: z.string() }) } },
        handler: async ({ params, query, req }) => ({ body: await this.uploads.receive(params.token, query, req.headers['content-length'], req) }),
      }),
      defineRoute({
        method: 'post',
        paths: ['/files/uploads/complete'],
        operationId: 'completeFileUploads',
        idempotencyKey: 'refused',
        summary: 'Confirm uploaded files',
        description:
          'One result per confirmation, in order. Per-file failures inside the 200: PERMISSION_DENIED (read-only key, or no editor/manager role in the upload\'s scope), UPLOAD_TOKEN_INVALID, UPLOAD_TOKEN_EXPIRED, UPLOAD_NOT_FOUND (nothing was PUT yet), UPLOAD_SIZE_MISMATCH (with object storage: the object PUT to the storage host has another size than declared; its bytes are read back and hashed before anything is appended), UPLOAD_NAME_INVALID (a name with NUL or an unpaired surrogate), INTERNAL_ERROR (an unexpected fault on that file: inspect the artifact before completing again; the other results stand). A replay adds another version. Indexing is scheduled, not awaited. uri is urn:ifrs:upload:<uploadId>.',
        tags: ['files'],
        body: CompleteBody,
        bodyLimit: 1024 * 1024,
        responses: { 200: { description: 'Upload completion result', schema: z.object({ results: z.array(CompletionResult) }).openapi('UploadCompletionResult') } },
        handler: async ({ principal, body, requestId }) => ({ body: { results: await this.uploads.complete(principal, body.confirmations, requestId) } }),
      }),
    ];
  }
}
