import { conflict, invalidCursor } from '../../src/domain/errors';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import type { FilesReadModel, StoredFile } from './files-read-model';

/** Entries past this position are not served: a filing with more files answers 409 inventory_limit_exceeded there. */
export const INVENTORY_MAX_ENTRIES = 10_000;

export const FileEntry = z
  .object({
    fileId: z.string().uuid(),
    name: z.string(),
    role: z.enum(['form', 'rate', 'rule', 'supporting_document', 'correspondence', 'other']),
    versionId: z.string().nullable().openapi({ description: 'The source version of the original; null when unknown.' }),
    mimeType: z.string(),
    size: z.number().int().nullable().openapi({ description: 'Bytes of the stored original; null when no original is stored.' }),
    pageCount: z.number().int().nullable(),
    textAvailable: z.boolean().openapi({ description: 'An extraction exists (GET /files/{fileId}/text answers 200, possibly with empty text).' }),
    restricted: z.boolean().openapi({ description: 'Downloads answer 403 download_restricted.' }),
  })
  .openapi('FileInventoryEntry');

const Params = z.strictObject({ filingId: z.string().min(1).max(128) });
const Query = z.strictObject({ limit: qInt(1, 200, 50).optional(), cursor: cursorParam().optional() });

export function toEntry(f: StoredFile): z.infer<typeof FileEntry> {
  return {
    fileId: f.fileId,
    name: f.name,
    role: f.role,
    versionId: f.versionId,
    mimeType: f.mimeType,
    size: f.size,
    pageCount: f.pageCount,
    textAvailable: f.text !== null,
    restricted: f.restricted,
  };
}

/** GET /filings/{filingId}/files: the stored files of a catalog filing, in the record's order. */
export class FileInventoryRoutes implements RouteModule {
  constructor(private readonly files: FilesReadModel, private readonly cursors: CursorService, private readonly maxEntries = INVENTORY_MAX_ENTRIES) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/filings/{filingId}/files', '/insurance/filings/{filingId}/files'],
        operationId: ['listFilingFiles', 'listInsuranceFilingFiles'],
        summary: 'File inventory of a catalog filing',
        description: `Files in the import record's order. A file id belongs to one catalog filing: the import refuses a second filing that lists it, so a file's text and download are always those of the filing whose inventory lists it. \`limit\` 1 to 200, default 50. Traversal past ${this.maxEntries.toLocaleString('en-US')} entries answers 409 inventory_limit_exceeded (the inventory is then partial).`,
        tags: ['files'],
        params: Params,
        query: Query,
        responses: {
          200: { description: 'A page of the inventory', schema: z.object({ files: z.array(FileEntry), nextCursor: z.string().nullable() }).openapi('FileInventory') },
          404: { description: 'Unknown filing, or a serff filing without serff:view' },
          409: { description: 'inventory_limit_exceeded' },
        },
        handler: async ({ params, query, principal }) => {
          const filing = await this.files.filing(principal, params.filingId);
          const limit = query.limit ?? 50;
          const binding = { kind: 'files.inventory', principal, request: { filingId: filing.filingId, limit } };
          let after = -1;
          let issuedAt: number | undefined;
          if (query.cursor) {
            const c = await this.cursors.decode<{ o: number }>(binding, query.cursor);
            if (typeof c.state?.o !== 'number') throw invalidCursor();
            after = c.state.o;
            issuedAt = c.issuedAt;
          }
          if (after + 1 >= this.maxEntries && filing.fileCount > this.maxEntries) {
            throw conflict('inventory_limit_exceeded', `The inventory is served up to ${this.maxEntries} entries; this filing has more, so the list is partial.`);
          }
          const page = await this.files.page(filing.filingId, after, limit, this.maxEntries);
          const last = page.length ? page[page.length - 1].ordinal : after;
          const more = last < filing.fileCount - 1;
          const nextCursor = more ? await this.cursors.encode(binding, { o: last }, issuedAt) : null;
          return { body: { files: page.map(toEntry), nextCursor } };
        },
      }),
    ];
  }
}
