import type { Container } from 'inversify';
import { IdentityCommands } from '../commands/identity/identity-commands';
import { IdentityProjector } from '../projections/identity/identity-projector';
import { UsersMeRoutes } from '../queries/identity/users-me';
import { TOKENS } from './tokens';
import { catalog } from './features/catalog-feature';

/**
 * Each feature binds its projectors, command services and route modules. Adding a feature is one
 * line in FEATURES; the engine and the app pick up whatever is bound.
 */
export type Feature = (c: Container) => void;

const identity: Feature = (c) => {
  c.bind(TOKENS.Projector).toConstantValue(new IdentityProjector());
  c.bind(TOKENS.IdentityCommands).toDynamicValue((ctx) => new IdentityCommands(ctx.get(TOKENS.CommandHandler))).inSingletonScope();
  c.bind(TOKENS.RouteModule).toConstantValue(new UsersMeRoutes());
};

export const FEATURES: Feature[] = [identity, catalog];
