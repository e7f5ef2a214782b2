import type { Container } from 'inversify';
import { CatalogFilingImporter } from '../../commands/catalog/catalog-filing-importer';
import { catalogFileClaims } from '../../commands/catalog/file-claims';
import { PostgresFileClaims } from '../../infra/eventstore/postgres-file-claims';
import { DIRECTORY_IMPORTERS } from '../../commands/directory/directory-importers';
import { BatchedAppender } from '../../infra/eventstore/batched-appender';
import { CatalogProjector } from '../../projections/catalog/catalog-projector';
import { DirectoryProjector } from '../../projections/directory/directory-projector';
import { TOKENS } from '../ports/tokens';
import type { Feature } from './feature';
import { catalogRouteModules } from '../../queries/catalog/routes';
import { directoryRouteModules } from '../../queries/directory/routes';

/** Catalog filings and the directories: import, read models and the GET endpoints (issue 3). */
export const catalog: Feature = (c: Container) => {
  c.bind(TOKENS.Projector).toConstantValue(new CatalogProjector());
  c.bind(TOKENS.Projector).toConstantValue(new DirectoryProjector());
  c.bind(TOKENS.RecordImporter)
    .toDynamicValue((ctx) => new CatalogFilingImporter(ctx.get(TOKENS.FileIngest), ctx.get(BatchedAppender), catalogFileClaims(new PostgresFileClaims())))
    .inSingletonScope();
  for (const make of DIRECTORY_IMPORTERS) {
    c.bind(TOKENS.RecordImporter)
      .toDynamicValue((ctx) => make(ctx.get(BatchedAppender)))
      .inSingletonScope();
  }
  for (const m of [...catalogRouteModules(), ...directoryRouteModules()]) {
    c.bind(TOKENS.RouteModule).toDynamicValue((ctx) => m(ctx)).inSingletonScope();
  }
};
