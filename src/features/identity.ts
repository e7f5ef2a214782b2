import { IdentityCommands } from '../../commands/identity/identity-commands';
import { IdentityProjector } from '../../projections/identity/identity-projector';
import { UsersMeRoutes } from '../../queries/identity/users-me';
import { TOKENS } from '../ports/tokens';
import type { Feature } from './feature';
import { CommandHandler } from '../../commands/command-handler';

/** Tenants, scopes, users, grants and API keys (all events), and GET /users/me. */
export const identity: Feature = (c) => {
  c.bind(TOKENS.Projector).toConstantValue(new IdentityProjector());
  c.bind(IdentityCommands).toDynamicValue((ctx) => new IdentityCommands(ctx.get(CommandHandler))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toConstantValue(new UsersMeRoutes());
};
