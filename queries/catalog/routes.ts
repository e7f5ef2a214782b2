import type { ResolutionContext } from 'inversify';
import type { Knex } from 'knex';
import type { RouteModule } from '../../src/http/route';
import { CursorService } from '../../src/http/cursors';
import { TOKENS } from '../../src/ports/tokens';
import { GetCatalogFilingRoute } from './get-catalog-filing';
import { ListCatalogFilingsRoute } from './list-catalog-filings';

/** The catalog's route modules, as factories the feature binds under TOKENS.RouteModule. */
export function catalogRouteModules(): ((ctx: ResolutionContext) => RouteModule)[] {
  return [
    (ctx) => new ListCatalogFilingsRoute(ctx.get<Knex>(TOKENS.ReadKnex), ctx.get(CursorService)),
    (ctx) => new GetCatalogFilingRoute(ctx.get<Knex>(TOKENS.ReadKnex)),
  ];
}
