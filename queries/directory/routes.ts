import type { ResolutionContext } from 'inversify';
import type { Knex } from 'knex';
import { CursorService } from '../../src/http/cursors';
import type { RouteModule } from '../../src/http/route';
import { TOKENS } from '../../src/ports/tokens';
import { GetCarrierRoute } from './get-carrier';
import { GetCarrierGroupRoute } from './get-carrier-group';
import { GetMgaRoute } from './get-mga';
import { GetProductRoute } from './get-product';
import { ListCarrierGroupsRoute } from './list-carrier-groups';
import { ListCarriersRoute } from './list-carriers';
import { ListMgasRoute } from './list-mgas';
import { ListProductsRoute } from './list-products';
import { ProductAvailabilityFilingsRoute } from './product-availability-filings';

/** The directories' route modules, one per endpoint. */
export function directoryRouteModules(): ((ctx: ResolutionContext) => RouteModule)[] {
  const knex = (ctx: ResolutionContext) => ctx.get<Knex>(TOKENS.ReadKnex);
  const cursors = (ctx: ResolutionContext) => ctx.get(CursorService);
  return [
    (ctx) => new ListCarriersRoute(knex(ctx), cursors(ctx)),
    (ctx) => new GetCarrierRoute(knex(ctx)),
    (ctx) => new ListCarrierGroupsRoute(knex(ctx), cursors(ctx)),
    (ctx) => new GetCarrierGroupRoute(knex(ctx)),
    (ctx) => new ListMgasRoute(knex(ctx), cursors(ctx)),
    (ctx) => new GetMgaRoute(knex(ctx)),
    (ctx) => new ListProductsRoute(knex(ctx), cursors(ctx)),
    (ctx) => new GetProductRoute(knex(ctx)),
    (ctx) => new ProductAvailabilityFilingsRoute(knex(ctx)),
  ];
}
