import type { ResolutionContext } from 'inversify';
import { FilesProjector } from '../../projections/files/files-projector';
import { FilesReadModel } from '../../queries/files/files-read-model';
import { FileInventoryRoutes } from '../../queries/files/file-inventory';
import { FileTextRoutes } from '../../queries/files/file-text';
import { FileDownloadRoutes } from '../../queries/files/file-download';
import { SignedFileDownloadRoutes } from '../../queries/files/signed-file-download';
import { pdfExtractor } from '../../infra/files/pdf-extractor';
import { plainTextExtractor } from '../../infra/files/file-ingest';
import { SearchProjector } from '../../projections/search/search-projector';
import { SearchFilingsRoutes } from '../../queries/search/search-filings';
import { TOKENS } from '../ports/tokens';
import type { Feature } from './feature';
import { CursorService } from '../http/cursors';
import { SignedUrls } from '../http/signed-urls';

/** Issue 4: stored files of catalog filings (inventory, text, download), PDF extraction, document search. */
export const filesAndSearch: Feature = (c) => {
  // Text extractors in order of preference: PDF first, then plain text.
  c.bind(TOKENS.Extractors).toConstantValue([pdfExtractor, plainTextExtractor]);
  c.bind(TOKENS.Projector).toConstantValue(new FilesProjector());
  const files = (ctx: ResolutionContext) => new FilesReadModel(ctx.get(TOKENS.ReadKnex));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FileInventoryRoutes(files(ctx), ctx.get(CursorService))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FileTextRoutes(files(ctx), ctx.get(TOKENS.BlobStore), ctx.get(CursorService))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FileDownloadRoutes(files(ctx), ctx.get(SignedUrls), ctx.get(TOKENS.DirectTransfers))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new SignedFileDownloadRoutes(files(ctx), ctx.get(TOKENS.BlobStore), ctx.get(SignedUrls))).inSingletonScope();
  // The SearchIndex (Postgres full-text search, or Elasticsearch) is chosen from the configuration in src/container.ts.
  c.bind(TOKENS.Projector).toDynamicValue((ctx) => new SearchProjector(ctx.get(TOKENS.SearchIndex), ctx.get(TOKENS.BlobStore))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new SearchFilingsRoutes(ctx.get(TOKENS.SearchIndex), ctx.get(CursorService), ctx.get(TOKENS.ReadKnex))).inSingletonScope();
};
