import { z } from '../../src/http/zod';
import { defineRoute, type RouteModule } from '../../src/http/route';

export const CurrentUser = z
  .object({ id: z.string(), tenantId: z.string(), name: z.string().nullable(), email: z.string().nullable() })
  .openapi('CurrentUser');

/** GET /users/me: who the key belongs to. Never cached; takes no query parameters. */
export class UsersMeRoutes implements RouteModule {
  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/users/me'],
        operationId: 'getCurrentUser',
        summary: 'The authenticated user and tenant',
        description:
          'Who the API key belongs to: the user id, its tenant, name and email. A quick check that a key works.',
        tags: ['identity'],
        responses: { 200: { description: 'The current user', schema: CurrentUser, headers: { 'Cache-Control': { description: '`no-store`: the answer must not be cached.' } } } },
        handler: async ({ principal }) => ({
          headers: { 'Cache-Control': 'no-store' },
          body: { id: principal.userId, tenantId: principal.tenantId, name: principal.name, email: principal.email },
        }),
      }),
    ];
  }
}
