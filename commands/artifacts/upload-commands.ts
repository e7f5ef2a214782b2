import crypto from 'node:crypto';
import { Transform, type Readable } from 'node:stream';
import type { CommandHandler } from '../command-handler';
import { AppError, DomainError, forbidden, invalidRequest, notFound } from '../../src/domain/errors';
import type { Principal } from '../../src/domain/principal';
import type { Logger } from '../../src/util/logger';
import { isStorableText } from '../../src/domain/storable-text';
import type { BlobStore } from '../../src/ports/blob-store';
import type { SignedUrls } from '../../src/http/signed-urls';
import type { DirectTransfers } from '../../src/ports/direct-transfers';
import type { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import type { ReferenceLookups } from '../../src/read-models/working-filings/reference-lookups';
import { artifactRecord, viewFromState } from '../../src/read-models/artifacts/artifact-record';
import { ARTIFACTS_PROJECTION } from '../../src/read-models/projection-names';
import { artifactDecider, UploadFailure } from './artifact';
import { UPLOAD_TOKEN_TTL_SECONDS, type UploadGrant, type UploadTokens } from './upload-tokens';

export const MAX_UPLOAD_BYTES = 512 * 1024 * 1024;
export const SIGNED_UPLOAD_PREFIX = '/api/v2/signed/uploads/';
export const artifactStream = (artifactId: string) => `artifact-${artifactId}`;

export type CompletionResult =
  | { uri: string; success: true; artifact: ReturnType<typeof artifactRecord>; error: null }
  | { uri: string; success: false; artifact: null; error: { code: string; message: string } };

/** Counts bytes through the pipe and fails as soon as more than `max` arrive (the declared size). */
function limitBytes(max: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      seen += chunk.length;
      if (seen > max) cb(new AppError(413, 'request_too_large', `The upload is larger than the declared size (${max} bytes).`));
      else cb(null, chunk);
    },
  });
}

/**
 * Uploads: a signed token and address (POST /files/uploads), the bytes (PUT to the signed address,
 * recorded on the artifact's stream), and batch completion (POST /files/uploads/complete) that adds
 * an artifact version per confirmation and leaves indexing to the Bus consumer.
 */
export class UploadCommands {
  constructor(
    private readonly handler: CommandHandler,
    private readonly access: FilingAccessService,
    private readonly lookups: ReferenceLookups,
    private readonly blobs: BlobStore,
    private readonly signed: SignedUrls,
    private readonly tokens: UploadTokens,
    private readonly log: Pick<Logger, 'error'>,
    /** The storage host's presigned PUTs (S3); null when the bytes come through the API's own signed address. */
    private readonly direct: DirectTransfers | null = null,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** `baseUrl`: the scheme and host the request came to; the signed address is under it unless PUBLIC_BASE_URL is set. */
  async begin(p: Principal, input: { scope: string; name: string; mimeType: string; size: number; artifactId?: string }, baseUrl: string) {
    const grant = await this.access.editableScope(p, input.scope);
    if (input.artifactId && !(await this.lookups.artifacts(grant.scopeId, [input.artifactId])).has(input.artifactId)) {
      throw notFound('The artifact does not exist in this scope or is not visible to this caller.');
    }
    const exp = Math.floor(this.now().getTime() / 1000) + UPLOAD_TOKEN_TTL_SECONDS;
    const uploadId = crypto.randomUUID();
    const uploadToken = this.tokens.issue({
      uploadId,
      artifactId: input.artifactId ?? crypto.randomUUID(),
      existing: Boolean(input.artifactId),
      scopeId: grant.scopeId,
      tenantId: p.tenantId,
      userId: p.userId,
      name: input.name,
      mimeType: input.mimeType,
      size: input.size,
      exp,
    });
    const ttl = exp - Math.floor(this.now().getTime() / 1000);
    if (this.direct) return { uploadToken, uploadUrl: await this.direct.uploadUrl(uploadId, ttl), expiresAt: new Date(exp * 1000).toISOString() };
    const s = this.signed.sign('PUT', SIGNED_UPLOAD_PREFIX + uploadToken, ttl, this.now().getTime());
    return { uploadToken, uploadUrl: this.signed.absolute(baseUrl, s.url), expiresAt: s.expiresAt.toISOString() };
  }

  /**
   * With object storage the bytes went straight to the storage host, so completion checks them before it
   * appends anything: the size against the declared one, then the bytes read back and hashed (the version's
   * content key), recorded as the PUT to the API's own address records them. False when nothing is waiting
   * there: never PUT, or taken by an earlier completion of the same token (the decider tells which).
   */
  private async receiveDirect(direct: DirectTransfers, g: UploadGrant): Promise<boolean> {
    const size = await direct.uploadSize(g.uploadId);
    if (size === null) return false;
    const mismatch = (n: number) => new UploadFailure('UPLOAD_SIZE_MISMATCH', `The uploaded object has ${n} bytes; ${g.size} were declared. Upload it again.`);
    if (size !== g.size) throw mismatch(size);
    const stored = await direct.claimUpload(g.uploadId);
    if (!stored) return false;
    if (stored.size !== g.size) throw mismatch(stored.size);
    await this.handler.execute(
      artifactDecider,
      artifactStream(g.artifactId),
      { type: 'ReceiveUpload', artifactId: g.artifactId, upload: { uploadId: g.uploadId, contentSha256: stored.sha256, size: stored.size, receivedAt: this.now().toISOString() } },
      { metadata: { tenantId: g.tenantId, actor: g.userId }, retries: 20 },
    );
    return true;
  }

  /** The signed PUT: checks the address and the size, stores the bytes, records them on the artifact's stream. */
  async receive(token: string, query: Record<string, unknown>, contentLength: string | undefined, body: Readable) {
    const check = this.signed.verify('PUT', SIGNED_UPLOAD_PREFIX + token, query.expires, query.signature, this.now().getTime());
    const t = this.tokens.verify(token, this.now().getTime());
    if (check === 'invalid' || t.status === 'invalid') throw forbidden('The upload address is invalid or was altered.');
    if (check === 'expired' || t.status === 'expired') throw forbidden('The upload address has expired; request a new one.');
    const g = t.grant;
    if (contentLength !== undefined && Number(contentLength) > g.size) throw new AppError(413, 'request_too_large', `The upload is larger than the declared size (${g.size} bytes).`);
    const stored = await this.blobs.putStream(body.pipe(limitBytes(g.size)));
    if (stored.size !== g.size) throw invalidRequest(`The upload has ${stored.size} bytes; ${g.size} were declared.`);
    await this.handler.execute(
      artifactDecider,
      artifactStream(g.artifactId),
      { type: 'ReceiveUpload', artifactId: g.artifactId, upload: { uploadId: g.uploadId, contentSha256: stored.sha256, size: stored.size, receivedAt: this.now().toISOString() } },
      { metadata: { tenantId: g.tenantId, actor: g.userId }, retries: 20 },
    );
    return { uploadId: g.uploadId, size: stored.size, contentSha256: stored.sha256 };
  }

  async complete(p: Principal, confirmations: { uploadToken: string }[], requestId: string | null): Promise<CompletionResult[]> {
    const results: CompletionResult[] = [];
    const grants = p.readOnly ? [] : await this.access.grants(p);
    for (const c of confirmations) {
      const t = this.tokens.verify(c.uploadToken, this.now().getTime());
      const uri = t.status === 'invalid' ? 'urn:ifrs:upload:unknown' : `urn:ifrs:upload:${t.grant.uploadId}`;
      try {
        if (p.readOnly) throw new UploadFailure('PERMISSION_DENIED', 'A read-only API key cannot complete uploads.');
        if (t.status === 'invalid') throw new UploadFailure('UPLOAD_TOKEN_INVALID', 'The upload token is not one this service issued, or it was altered.');
        if (t.status === 'expired') throw new UploadFailure('UPLOAD_TOKEN_EXPIRED', 'The upload token has expired (one hour); upload again.');
        const g = t.grant;
        // Names are checked when the upload starts; a token issued before that check could still carry one.
        if (!isStorableText(g.name)) throw new UploadFailure('UPLOAD_NAME_INVALID', 'The file name holds a NUL or an unpaired UTF-16 surrogate; start the upload again with another name.');
        const role = g.tenantId === p.tenantId ? grants.find((x) => x.scopeId === g.scopeId)?.role : undefined;
        if (!role || role === 'viewer') throw new UploadFailure('PERMISSION_DENIED', 'The caller may not write files in the upload\'s scope.');
        const claimed = this.direct ? await this.receiveDirect(this.direct, g) : false;
        const r = await this.handler.execute(
          artifactDecider,
          artifactStream(g.artifactId),
          {
            type: 'CompleteUpload',
            artifactId: g.artifactId,
            uploadId: g.uploadId,
            versionId: crypto.randomUUID(),
            scope: `mc:${g.scopeId}`,
            scopeId: g.scopeId,
            tenantId: g.tenantId,
            name: g.name,
            mimeType: g.mimeType,
            actor: p.userId,
            now: this.now().toISOString(),
          },
          { metadata: { tenantId: p.tenantId, actor: p.userId, requestId }, waitFor: [ARTIFACTS_PROJECTION], retries: 20 },
        );
        // The bytes are under their content address now; a replay of the token finds them recorded on the stream.
        if (claimed) await this.direct?.discardUpload(g.uploadId);
        results.push({ uri, success: true, artifact: artifactRecord(viewFromState(r.state)), error: null });
      } catch (e) {
        if (e instanceof DomainError) {
          results.push({ uri, success: false, artifact: null, error: { code: e.code, message: e.message } });
          continue;
        }
        // One file's fault must not fail the batch: the files completed before it are committed, and an answer
        // without them would hide versions that exist. Nothing after the append throws (a slow read side is
        // only logged), so a fault here means this file's append did not commit, or (a connection lost during
        // the commit) that no one can tell.
        this.log.error({ err: e, uri }, 'upload completion failed for one file');
        results.push({
          uri,
          success: false,
          artifact: null,
          error: { code: 'INTERNAL_ERROR', message: 'An unexpected fault; nothing can be inferred about whether this file got a version: inspect the artifact before completing it again.' },
        });
      }
    }
    return results;
  }
}
