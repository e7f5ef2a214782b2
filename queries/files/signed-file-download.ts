import fresh from 'fresh';
import { AppError, notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import type { SignedUrls } from '../../src/http/signed-urls';
import { qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { BlobStore } from '../../src/ports/blob-store';
import { contentDisposition, contentTypeOf } from './download-headers';
import { downloadRestricted, signedDownloadPath, versionHeader } from './file-download';
import type { FilesReadModel } from './files-read-model';

export { contentDisposition, contentTypeOf };

/** One `bytes=` range of a resource of `size` bytes; 'all' when absent or not a single byte range (RFC 9110 allows ignoring it). */
export function parseRange(header: string | undefined, size: number): { start: number; end: number } | 'all' | 'unsatisfiable' {
  if (!header) return 'all';
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'all';
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (start >= size || end < start) return 'unsatisfiable';
  return { start, end };
}

const CACHE_HEADERS = {
  ETag: { description: 'The SHA-256 of the content, quoted: the address pins this content.' },
  'Cache-Control': { description: '`private, max-age=<seconds the address stays valid>, immutable`.' },
};

const BYTES_HEADERS = {
  'Content-Disposition': { description: 'attachment, with the file name (`filename*` in UTF-8).' },
  'File-Version-Id': { description: 'The version served.' },
  'Accept-Ranges': { description: '`bytes`: a single byte range may be asked for.' },
};

const Params = z.strictObject({ fileId: z.string().min(1).max(128), version: z.string().min(1).max(300), grant: z.string().min(1).max(64) });
const Query = z.strictObject({ expires: qScalar(z.string().max(20)).optional(), signature: qScalar(z.string().max(100)).optional() });

/**
 * The signed download address itself, served without the API key: the HMAC over the path and the
 * expiry is the authorization. Altered or expired addresses are 403 `forbidden` (JSON error shape);
 * a file restricted since the redirect is 403 `download_restricted`.
 */
export class SignedFileDownloadRoutes implements RouteModule {
  constructor(private readonly files: FilesReadModel, private readonly blobs: BlobStore, private readonly signed: SignedUrls) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/signed/files/{fileId}/{version}/{grant}'],
        operationId: 'getSignedFile',
        summary: 'Signed download address (no API key)',
        description: 'Serves the original with Content-Type, Content-Length, Content-Disposition and single byte-range support (206, 416); ETag (the SHA-256 of the content) and If-None-Match (304), cacheable privately while the address is valid.',
        tags: ['files'],
        extension: true,
        auth: 'none',
        params: Params,
        query: Query,
        responses: {
          200: { description: 'The original\'s bytes, with its stored media type', binary: true, headers: { ...BYTES_HEADERS, ...CACHE_HEADERS } },
          206: { description: 'A byte range of the original', binary: true, headers: { ...BYTES_HEADERS, ...CACHE_HEADERS, 'Content-Range': { description: 'The range served: `bytes <start>-<end>/<size>`.' } } },
          304: { description: 'Not Modified: If-None-Match names this content (no body)', headers: CACHE_HEADERS },
          403: { description: 'forbidden (altered or expired address) or download_restricted' },
          404: { description: 'The file or version no longer exists' },
          416: { description: 'range_not_satisfiable' },
        },
        handler: async ({ params, query, req, res }) => {
          const path = signedDownloadPath(params.fileId, params.version, params.grant);
          const check = this.signed.verify('GET', path, query.expires, query.signature);
          if (check === 'expired') throw new AppError(403, 'forbidden', 'The signed address has expired; request a new one from /files/{fileId}/download.');
          if (check !== 'ok') throw new AppError(403, 'forbidden', 'The signed address is invalid (altered or incomplete).');
          const file = await this.files.fileUnchecked(params.fileId);
          if (!file) throw notFound();
          if (file.restricted) throw downloadRestricted();
          const version = await this.files.version(file.fileId, params.version);
          if (!version) throw notFound('This file has no such version.');
          // The address pins one stored content (its hash is the validator): the bytes behind it never change,
          // so a client may keep them for as long as the address is valid, and ask again with If-None-Match.
          res.setHeader('ETag', `"${version.contentSha256}"`);
          res.setHeader('Cache-Control', `private, max-age=${Math.max(0, Number(query.expires) - Math.floor(Date.now() / 1000))}, immutable`);
          res.setHeader('File-Version-Id', versionHeader(params.version));
          if (req.headers['if-none-match'] !== undefined && fresh(req.headers, { etag: res.getHeader('ETag') as string })) {
            res.status(304).end();
            return { handled: true };
          }
          const size = version.size ?? (await this.blobs.size(version.contentSha256));
          const range = parseRange(req.headers.range, size);
          res.setHeader('Accept-Ranges', 'bytes');
          if (range === 'unsatisfiable') {
            res.setHeader('Content-Range', `bytes */${size}`);
            throw new AppError(416, 'range_not_satisfiable', `The requested range is outside the file (${size} bytes).`);
          }
          res.setHeader('Content-Type', contentTypeOf(file.mimeType));
          res.setHeader('Content-Disposition', contentDisposition(file.name));
          const r = range === 'all' ? null : range;
          res.status(r ? 206 : 200);
          res.setHeader('Content-Length', String(r ? r.end - r.start + 1 : size));
          if (r) res.setHeader('Content-Range', `bytes ${r.start}-${r.end}/${size}`);
          if (req.method === 'HEAD' || size === 0) {
            res.end();
            return { handled: true };
          }
          const body = this.blobs.stream(version.contentSha256, r ?? undefined);
          await new Promise<void>((resolve, reject) => {
            body.on('error', reject);
            res.on('close', () => resolve());
            body.pipe(res);
          });
          return { handled: true };
        },
      }),
    ];
  }
}
