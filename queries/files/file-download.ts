import crypto from 'node:crypto';
import { AppError, notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { requestBaseUrl, type SignedUrls } from '../../src/http/signed-urls';
import type { DirectTransfers } from '../../src/ports/direct-transfers';
import { qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { downloadVersionOf } from '../../src/read-models/files';
import { contentDisposition, contentTypeOf } from './download-headers';
import type { FilesReadModel } from './files-read-model';

/** Lifetime of a signed download address. Short: it works without the API key. */
export const DOWNLOAD_TTL_SECONDS = 300;

export const downloadRestricted = () => new AppError(403, 'download_restricted', 'This file is restricted: its original may not be downloaded.');
export const contentUnavailable = () => new AppError(409, 'content_unavailable', 'No original is stored for this file; its extracted text may still be readable.');

/**
 * The signed address of one version of a file. A random grant segment makes every redirect a fresh
 * address (a retry within the same second still gets a new one); the signature covers the whole path.
 */
export function signedDownloadPath(fileId: string, version: string, grant = crypto.randomBytes(9).toString('base64url')): string {
  return `/api/v2/signed/files/${fileId}/${encodeURIComponent(version)}/${grant}`;
}

/** Printable ASCII without surrounding spaces: a header value every client reads back exactly as sent. */
const HEADER_SAFE = /^[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?$/;

/**
 * The File-Version-Id header of a version. A source version id is free text: one that a header cannot
 * carry as is (non-ASCII, control characters, surrounding spaces: Node refuses most of them, a 500) is
 * sent percent-encoded as UTF-8, `%` included, so the header stays an opaque value that pins it again.
 */
export function versionHeader(version: string): string {
  if (HEADER_SAFE.test(version)) return version;
  let out = '';
  for (const byte of Buffer.from(version, 'utf8')) {
    const c = String.fromCharCode(byte);
    out += byte > 0x20 && byte < 0x7f && c !== '%' ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The versions a `versionId` parameter can name: itself, and the version whose header it is when that one
 * had to be encoded (a decoded value a header could have carried as is was never encoded, so none is ambiguous).
 */
export function versionsNamedBy(given: string): string[] {
  if (!given.includes('%')) return [given];
  let decoded: string;
  try {
    decoded = decodeURIComponent(given);
  } catch {
    return [given];
  }
  return versionHeader(decoded) === given && decoded !== given ? [given, decoded] : [given];
}

const Params = z.strictObject({ fileId: z.string().min(1).max(128) });
const Query = z.strictObject({ versionId: qScalar(z.string().min(1).max(256)).optional() });

/** GET /files/{fileId}/download: a 302 to a short-lived signed address of the pinned original version. */
export class FileDownloadRoutes implements RouteModule {
  /** `direct`: the storage host's presigned GETs (S3); null when the API serves its own signed address. */
  constructor(
    private readonly files: FilesReadModel,
    private readonly signed: SignedUrls,
    private readonly direct: DirectTransfers | null = null,
    private readonly ttlSeconds = DOWNLOAD_TTL_SECONDS,
  ) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/files/{fileId}/download'],
        operationId: 'downloadFile',
        summary: 'Download the original of a file (redirect to a signed address)',
        description:
          `302 to an absolute signed address valid ${this.ttlSeconds} seconds, followed without the API key: the service's own, or with object storage (S3_BUCKET) a presigned SigV4 GET on the storage host that answers with the file's Content-Type and Content-Disposition. ` +
          'File-Version-Id is the opaque version pinned: the source versionId (percent-encoded as UTF-8 when a header cannot carry it as is), or `sha256-` + 32 hex digits of the content when the source gives none; either form is accepted as versionId. ' +
          'An unknown versionId is 404; a restricted file 403 download_restricted; a file without a stored original 409 content_unavailable.',
        tags: ['files'],
        params: Params,
        query: Query,
        responses: {
          302: { description: 'Redirect to the signed address', headers: { Location: { description: 'Absolute signed address' }, 'File-Version-Id': { description: 'Opaque version pinned' } } },
          403: { description: 'download_restricted' },
          404: { description: 'Unknown file or version, or a serff filing\'s file without serff:view' },
          409: { description: 'content_unavailable: no original stored' },
        },
        handler: async ({ params, query, principal, req }) => {
          const file = await this.files.file(principal, params.fileId);
          if (file.restricted) throw downloadRestricted();
          let version: string;
          let sha256: string | null = null;
          if (query.versionId !== undefined) {
            let known: string | undefined;
            for (const v of versionsNamedBy(query.versionId)) {
              const row = known ? null : await this.files.version(file.fileId, v);
              if (row) [known, sha256] = [v, row.contentSha256];
            }
            if (!known) throw notFound('This file has no such version.');
            version = known;
          } else {
            const current = downloadVersionOf(file);
            if (!current) throw contentUnavailable();
            version = current;
            sha256 = file.contentSha256;
          }
          if (this.direct && sha256) {
            const headers = { contentType: contentTypeOf(file.mimeType), contentDisposition: contentDisposition(file.name) };
            const location = await this.direct.downloadUrl(sha256, headers, this.ttlSeconds);
            return { status: 302, headers: { Location: location, 'File-Version-Id': versionHeader(version), 'Cache-Control': 'no-store' } };
          }
          const { url } = this.signed.sign('GET', signedDownloadPath(file.fileId, version), this.ttlSeconds);
          return { status: 302, headers: { Location: this.signed.absolute(requestBaseUrl(req), url), 'File-Version-Id': versionHeader(version), 'Cache-Control': 'no-store' } };
        },
      }),
    ];
  }
}
