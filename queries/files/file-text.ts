import { conflict, invalidCursor } from '../../src/domain/errors';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { BlobStore } from '../../src/ports/blob-store';
import type { FilesReadModel } from './files-read-model';
import { jsonString, sendTextChunk } from './text-chunk-json';
import { wholeCharacterLength } from './utf8-chunk';

/** DESIGN.md: 4 bytes fit any UTF-8 character, so every chunk makes progress. */
export const MAX_BYTES_MIN = 4;
export const MAX_BYTES_MAX = 1_048_576;
export const MAX_BYTES_DEFAULT = 65_536;

export const TextChunk = z
  .object({
    fileId: z.string().uuid(),
    text: z.string(),
    textRevision: z.string(),
    versionId: z.null().openapi({ description: 'Currently always null.' }),
    location: z.object({ startOffsetBytes: z.number().int(), endOffsetBytes: z.number().int() }),
    nextCursor: z.string().nullable(),
  })
  .openapi('ExtractedTextChunk');

const Params = z.strictObject({ fileId: z.string().min(1).max(128) });
const Query = z.strictObject({ maxBytes: qInt(MAX_BYTES_MIN, MAX_BYTES_MAX, MAX_BYTES_DEFAULT).optional(), cursor: cursorParam().optional() });

interface TextCursorState {
  /** Next byte offset (always a character boundary). */
  o: number;
  /** The text revision the first chunk came from: revisions are never combined. */
  r: string;
}

/** GET /files/{fileId}/text: existing extracted text in UTF-8 byte-bounded chunks. */
export class FileTextRoutes implements RouteModule {
  constructor(private readonly files: FilesReadModel, private readonly blobs: BlobStore, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/files/{fileId}/text'],
        operationId: 'getFileText',
        summary: 'A chunk of a file\'s extracted text',
        description:
          `maxBytes ${MAX_BYTES_MIN} to ${MAX_BYTES_MAX}, default ${MAX_BYTES_DEFAULT}. A chunk ends on a character boundary, so it may be shorter than maxBytes. ` +
          'Continue with the same maxBytes and the nextCursor; a changed text revision between chunks answers 400 invalid_cursor (restart). ' +
          'Cursors expire 24 hours after the first chunk. No extraction: 409 text_unavailable.',
        tags: ['files'],
        concurrency: 'text',
        params: Params,
        query: Query,
        responses: {
          200: { description: 'A chunk', schema: TextChunk },
          404: { description: 'Unknown file, or a serff filing\'s file without serff:view' },
          409: { description: 'text_unavailable: no extraction exists (the original download may be used)' },
        },
        handler: async ({ params, query, principal, res, signal }) => {
          const maxBytes = query.maxBytes ?? MAX_BYTES_DEFAULT;
          // A file id's canonical form (as stored and echoed) is lower case; the cursor is bound to it.
          const binding = { kind: 'files.text', principal, request: { fileId: params.fileId.toLowerCase(), maxBytes } };
          // The cursor is read before the file so that one statement can fetch the slice it points to;
          // its errors wait until the file is known to exist and have text (404 and 409 come first).
          let position: { start: number; revision: string | null; issuedAt?: number } = { start: 0, revision: null };
          let cursorError: unknown = null;
          if (query.cursor) {
            try {
              const c = await this.cursors.decode<TextCursorState>(binding, query.cursor);
              if (typeof c.state?.o !== 'number' || typeof c.state.r !== 'string' || !Number.isSafeInteger(c.state.o) || c.state.o < 0) throw invalidCursor();
              position = { start: c.state.o, revision: c.state.r, issuedAt: c.issuedAt };
            } catch (e) {
              cursorError = e;
            }
          }
          const { start } = position;
          const file = await this.files.textChunk(principal, params.fileId, start, cursorError ? 0 : maxBytes, signal);
          if (!file.text) throw conflict('text_unavailable', 'This file has no extracted text; the original can be downloaded.');
          const text = file.text;
          if (cursorError) throw cursorError;
          if (start > text.byteLength) throw invalidCursor();
          if (position.revision !== null && position.revision !== text.textRevision) throw invalidCursor('The extracted text changed since the first chunk; restart without a cursor.');
          let textJson: string;
          let end: number;
          if (file.slice) {
            textJson = jsonString(file.slice.text);
            end = start + file.slice.bytes;
          } else {
            // Not in Postgres: the bytes of the range, cut back to a character boundary here.
            const bytes = await this.blobs.read(text.textSha256, start, Math.min(maxBytes, text.byteLength - start));
            end = start + wholeCharacterLength(bytes, start + bytes.length >= text.byteLength);
            textJson = jsonString(bytes.toString('utf8', 0, end - start));
          }
          const nextCursor = end < text.byteLength ? await this.cursors.encode<TextCursorState>(binding, { o: end, r: text.textRevision }, position.issuedAt) : null;
          sendTextChunk(res, { fileId: file.fileId, textJson, textRevision: text.textRevision, start, end, nextCursor });
          return { handled: true };
        },
      }),
    ];
  }
}
