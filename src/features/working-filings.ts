import type { Container, ResolutionContext } from 'inversify';
import { TOKENS } from '../ports/tokens';
import { CommandHandler } from '../../commands/command-handler';
import { CursorService } from '../http/cursors';
import { ManagedFilingCommands } from '../../commands/managed-filings/managed-filing-commands';
import { ManagedFilingImporter } from '../../commands/managed-filings/managed-filing-importer';
import { FilingWriteRoutes } from '../../commands/managed-filings/filing-write-routes';
import { ItemWriteRoutes } from '../../commands/managed-filings/item-write-routes';
import { CommentWriteRoutes } from '../../commands/managed-filings/comment-write-routes';
import { ScopeListingImporter } from '../../commands/scope-listings/scope-listing-importer';
import { UploadCommands } from '../../commands/artifacts/upload-commands';
import { UploadRoutes } from '../../commands/artifacts/upload-routes';
import { UploadTokens } from '../../commands/artifacts/upload-tokens';
import { IndexingWorker } from '../../commands/artifacts/indexing-worker';
import { ManagedFilingsProjector } from '../../projections/managed-filings/managed-filings-projector';
import { ManagedFilingItemsProjector } from '../../projections/managed-filings/items-projector';
import { ManagedFilingCommentsProjector } from '../../projections/managed-filings/comments-projector';
import { ManagedFilingHistoryProjector } from '../../projections/managed-filings/history-projector';
import { ScopeListingsProjector } from '../../projections/scope-listings/scope-listings-projector';
import { ArtifactsProjector } from '../../projections/artifacts/artifacts-projector';
import { FilingAccessService } from '../read-models/working-filings/filing-access';
import { ReferenceLookups } from '../read-models/working-filings/reference-lookups';
import { FilingDetailRoute } from '../../queries/managed-filings/filing-detail-route';
import { FilingListRoute } from '../../queries/managed-filings/filing-list-route';
import { ItemListRoute } from '../../queries/managed-filings/item-list-route';
import { CommentListRoute } from '../../queries/managed-filings/comment-list-route';
import { FilingEventsRoute } from '../../queries/managed-filings/filing-events-route';
import { FieldOptionsRoute } from '../../queries/managed-filings/field-options-route';
import { ScopeListingRoutes } from '../../queries/scope-listings/scope-listing-routes';
import { ArtifactDetailRoute } from '../../queries/artifacts/artifact-detail-route';
import { SignedUrls } from '../http/signed-urls';

/**
 * Working filings: managed filings with items and comments, scope listings, uploads and artifacts,
 * the indexing worker, and the importers of scope_* and managed_filing records.
 */
export function workingFilingsFeature(c: Container): void {
  for (const p of [
    new ManagedFilingsProjector(),
    new ManagedFilingItemsProjector(),
    new ManagedFilingCommentsProjector(),
    new ManagedFilingHistoryProjector(),
    new ScopeListingsProjector(),
    new ArtifactsProjector(),
  ]) {
    c.bind(TOKENS.Projector).toConstantValue(p);
  }
  const knex = (ctx: ResolutionContext) => ctx.get(TOKENS.Knex);
  // What requests read (lists, access checks, look-ups) runs on the read pool, under the statement timeout.
  const readKnex = (ctx: ResolutionContext) => ctx.get(TOKENS.ReadKnex);
  c.bind(FilingAccessService).toDynamicValue((ctx) => new FilingAccessService(readKnex(ctx))).inSingletonScope();
  c.bind(ReferenceLookups).toDynamicValue((ctx) => new ReferenceLookups(readKnex(ctx))).inSingletonScope();
  c.bind(ManagedFilingCommands)
    .toDynamicValue((ctx) => new ManagedFilingCommands(ctx.get(CommandHandler), ctx.get(FilingAccessService), ctx.get(ReferenceLookups), knex(ctx)))
    .inSingletonScope();
  c.bind(UploadCommands)
    .toDynamicValue(
      (ctx) =>
        new UploadCommands(
          ctx.get(CommandHandler),
          ctx.get(FilingAccessService),
          ctx.get(ReferenceLookups),
          ctx.get(TOKENS.BlobStore),
          ctx.get(SignedUrls),
          new UploadTokens(ctx.get(TOKENS.Secret)),
          ctx.get(TOKENS.Logger),
          ctx.get(TOKENS.DirectTransfers),
        ),
    )
    .inSingletonScope();

  c.bind(TOKENS.RecordImporter).toDynamicValue((ctx) => new ScopeListingImporter(ctx.get(CommandHandler), knex(ctx))).inSingletonScope();
  c.bind(TOKENS.RecordImporter).toDynamicValue((ctx) => new ManagedFilingImporter(ctx.get(CommandHandler), knex(ctx))).inSingletonScope();

  const cursors = (ctx: ResolutionContext) => ctx.get(CursorService);
  c.bind(TOKENS.RouteModule).toConstantValue(new FieldOptionsRoute());
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ScopeListingRoutes(readKnex(ctx), ctx.get(FilingAccessService), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingListRoute(readKnex(ctx), ctx.get(FilingAccessService), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingWriteRoutes(ctx.get(ManagedFilingCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingDetailRoute(ctx.get(FilingAccessService)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ItemListRoute(readKnex(ctx), ctx.get(FilingAccessService), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ItemWriteRoutes(ctx.get(ManagedFilingCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new CommentListRoute(readKnex(ctx), ctx.get(FilingAccessService), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new CommentWriteRoutes(ctx.get(ManagedFilingCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingEventsRoute(readKnex(ctx), ctx.get(FilingAccessService), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new UploadRoutes(ctx.get(UploadCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ArtifactDetailRoute(readKnex(ctx), ctx.get(FilingAccessService)));

  c.bind(TOKENS.BusWorker)
    .toDynamicValue(
      (ctx) =>
        new IndexingWorker(
          ctx.get(CommandHandler),
          ctx.get(TOKENS.BlobStore),
          () => ctx.get(TOKENS.Extractors),
          ctx.get(TOKENS.Logger),
        ),
    )
    .inSingletonScope();
}
