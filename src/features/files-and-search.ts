import type { Knex } from 'knex';
import { FilesProjector } from '../../projections/files/files-projector';
import { FilesReadModel } from '../../queries/files/files-read-model';
import { FileInventoryRoutes } from '../../queries/files/file-inventory';
import { FileTextRoutes } from '../../queries/files/file-text';
import { FileDownloadRoutes } from '../../queries/files/file-download';
import { SignedFileDownloadRoutes } from '../../queries/files/signed-file-download';
import { pdfExtractor } from '../../infra/files/pdf-extractor';
import { plainTextExtractor, type Extractor } from '../../infra/files/file-ingest';
import { PostgresSearchIndex } from '../../infra/search/postgres-search-index';
import { SearchProjector } from '../../projections/search/search-projector';
import { SearchFilingsRoutes } from '../../queries/search/search-filings';
import type { SearchIndex } from '../ports/search-index';
import { TOKENS } from '../ports/tokens';
import type { Feature } from './feature';

/** Issue 4: stored files of catalog filings (inventory, text, download), PDF extraction, document search. */
export const filesAndSearch: Feature = (c) => {
  c.rebindSync(TOKENS.Extractors).toConstantValue([pdfExtractor, plainTextExtractor] as Extractor[]);
  c.bind(TOKENS.Projector).toConstantValue(new FilesProjector());
  const files = (ctx: { get<T>(id: symbol): T }) => new FilesReadModel(ctx.get<Knex>(TOKENS.ReadKnex));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FileInventoryRoutes(files(ctx), ctx.get(TOKENS.Cursors))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FileTextRoutes(files(ctx), ctx.get(TOKENS.BlobStore), ctx.get(TOKENS.Cursors))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FileDownloadRoutes(files(ctx), ctx.get(TOKENS.SignedUrls), ctx.get(TOKENS.DirectTransfers))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new SignedFileDownloadRoutes(files(ctx), ctx.get(TOKENS.BlobStore), ctx.get(TOKENS.SignedUrls))).inSingletonScope();
  // Postgres full-text search is the default SearchIndex; with ELASTICSEARCH_URL the composition root rebinds it (src/container.ts).
  c.bind(TOKENS.SearchIndex).toDynamicValue((ctx) => new PostgresSearchIndex(ctx.get<Knex>(TOKENS.ReadKnex))).inSingletonScope();
  c.bind(TOKENS.Projector).toDynamicValue((ctx) => new SearchProjector(ctx.get<SearchIndex>(TOKENS.SearchIndex), ctx.get(TOKENS.BlobStore))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new SearchFilingsRoutes(ctx.get<SearchIndex>(TOKENS.SearchIndex), ctx.get(TOKENS.Cursors), ctx.get<Knex>(TOKENS.ReadKnex))).inSingletonScope();
};
