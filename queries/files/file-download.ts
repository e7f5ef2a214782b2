import crypto from 'node:crypto';
import { AppError, notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import type { SignedUrls } from '../../src/http/signed-urls';
import { qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { downloadVersionOf } from '../../projections/files/file-version';
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

const Params = z.strictObject({ fileId: z.string().min(1).max(128) });
const Query = z.strictObject({ versionId: qScalar(z.string().min(1).max(256)).optional() });

/** GET /files/{fileId}/download: a 302 to a short-lived signed address of the pinned original version. */
export class FileDownloadRoutes implements RouteModule {
  constructor(private readonly files: FilesReadModel, private readonly signed: SignedUrls, private readonly ttlSeconds = DOWNLOAD_TTL_SECONDS) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/files/{fileId}/download'],
        summary: 'Download the original of a file (redirect to a signed address)',
        description:
          `302 to an absolute signed address valid ${this.ttlSeconds} seconds, followed without the API key. ` +
          'File-Version-Id is the opaque version pinned: the source versionId, or `sha256-` + 32 hex digits of the content when the source gives none. ' +
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
          if (query.versionId !== undefined) {
            if (!(await this.files.version(file.fileId, query.versionId))) throw notFound('This file has no such version.');
            version = query.versionId;
          } else {
            const current = downloadVersionOf(file);
            if (!current) throw contentUnavailable();
            version = current;
          }
          const { url } = this.signed.sign('GET', signedDownloadPath(file.fileId, version), this.ttlSeconds);
          return { status: 302, headers: { Location: this.signed.absolute(req, url), 'File-Version-Id': version, 'Cache-Control': 'no-store' } };
        },
      }),
    ];
  }
}
