import type { Container } from 'inversify';
import type { Knex } from 'knex';
import { TOKENS } from '../ports/tokens';
import type { CommandHandler } from '../../commands/command-handler';
import type { CursorService } from '../http/cursors';
import type { Logger } from '../util/logger';
import type { Extractor } from '../../infra/files/file-ingest';
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

/** Service identifiers of the working-filings feature (issue 5). */
export const WF_TOKENS = {
  FilingAccess: Symbol.for('WorkingFilings.FilingAccess'),
  ReferenceLookups: Symbol.for('WorkingFilings.ReferenceLookups'),
  ManagedFilingCommands: Symbol.for('WorkingFilings.ManagedFilingCommands'),
  UploadCommands: Symbol.for('WorkingFilings.UploadCommands'),
} as const;

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
  const knex = (ctx: { get<T>(id: symbol): T }) => ctx.get<Knex>(TOKENS.Knex);
  // What requests read (lists, access checks, look-ups) runs on the read pool, under the statement timeout.
  const readKnex = (ctx: { get<T>(id: symbol): T }) => ctx.get<Knex>(TOKENS.ReadKnex);
  c.bind(WF_TOKENS.FilingAccess).toDynamicValue((ctx) => new FilingAccessService(readKnex(ctx))).inSingletonScope();
  c.bind(WF_TOKENS.ReferenceLookups).toDynamicValue((ctx) => new ReferenceLookups(readKnex(ctx))).inSingletonScope();
  c.bind(WF_TOKENS.ManagedFilingCommands)
    .toDynamicValue((ctx) => new ManagedFilingCommands(ctx.get(TOKENS.CommandHandler), ctx.get(WF_TOKENS.FilingAccess), ctx.get(WF_TOKENS.ReferenceLookups), knex(ctx)))
    .inSingletonScope();
  c.bind(WF_TOKENS.UploadCommands)
    .toDynamicValue(
      (ctx) =>
        new UploadCommands(
          ctx.get(TOKENS.CommandHandler),
          ctx.get(WF_TOKENS.FilingAccess),
          ctx.get(WF_TOKENS.ReferenceLookups),
          ctx.get(TOKENS.BlobStore),
          ctx.get(TOKENS.SignedUrls),
          new UploadTokens(ctx.get<Buffer>(TOKENS.Secret)),
          ctx.get<Logger>(TOKENS.Logger),
          ctx.get(TOKENS.DirectTransfers),
        ),
    )
    .inSingletonScope();

  c.bind(TOKENS.RecordImporter).toDynamicValue((ctx) => new ScopeListingImporter(ctx.get(TOKENS.CommandHandler), knex(ctx))).inSingletonScope();
  c.bind(TOKENS.RecordImporter).toDynamicValue((ctx) => new ManagedFilingImporter(ctx.get(TOKENS.CommandHandler), knex(ctx))).inSingletonScope();

  const cursors = (ctx: { get<T>(id: symbol): T }) => ctx.get<CursorService>(TOKENS.Cursors);
  c.bind(TOKENS.RouteModule).toConstantValue(new FieldOptionsRoute());
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ScopeListingRoutes(readKnex(ctx), ctx.get(WF_TOKENS.FilingAccess), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingListRoute(readKnex(ctx), ctx.get(WF_TOKENS.FilingAccess), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingWriteRoutes(ctx.get(WF_TOKENS.ManagedFilingCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingDetailRoute(ctx.get(WF_TOKENS.FilingAccess)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ItemListRoute(readKnex(ctx), ctx.get(WF_TOKENS.FilingAccess), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ItemWriteRoutes(ctx.get(WF_TOKENS.ManagedFilingCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new CommentListRoute(readKnex(ctx), ctx.get(WF_TOKENS.FilingAccess), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new CommentWriteRoutes(ctx.get(WF_TOKENS.ManagedFilingCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new FilingEventsRoute(readKnex(ctx), ctx.get(WF_TOKENS.FilingAccess), cursors(ctx)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new UploadRoutes(ctx.get(WF_TOKENS.UploadCommands)));
  c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => new ArtifactDetailRoute(readKnex(ctx), ctx.get(WF_TOKENS.FilingAccess)));

  c.bind(TOKENS.BusWorker)
    .toDynamicValue(
      (ctx) =>
        new IndexingWorker(
          ctx.get<CommandHandler>(TOKENS.CommandHandler),
          ctx.get(TOKENS.BlobStore),
          // Resolved per batch: another feature may rebind the extractor list (PDF first).
          () => ctx.get<Extractor[]>(TOKENS.Extractors),
          ctx.get<Logger>(TOKENS.Logger),
        ),
    )
    .inSingletonScope();
}
