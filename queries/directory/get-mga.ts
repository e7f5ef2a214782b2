import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';
import { notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { MgaDetail } from './directory-schemas';

/** GET /insurance/mgas/{mgaId}: the MGA with the carriers backing it, each link's role and source notes as given. */
export class GetMgaRoute implements RouteModule {
  constructor(private readonly knex: Knex) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/mgas/{mgaId}'],
        operationId: 'getMga',
        summary: 'Get an MGA',
        description:
          'One MGA with its carriers and their roles (fronting carrier, capacity provider). 404 when no MGA has this id.',
        tags: ['directories'],
        params: z.strictObject({ mgaId: z.string().max(500) }),
        responses: { 200: { description: 'The MGA and its backing carriers', schema: MgaDetail } },
        handler: async ({ params }) => {
          const m = await this.knex(DIR.mgas).where({ id: params.mgaId }).first();
          if (!m) throw notFound(`No MGA ${params.mgaId}.`);
          const links = m.carriers as { carrierId: string; role: string; sourceNotes: string | null }[];
          const names = new Map<string, string>(
            ((await this.knex(DIR.carriers).whereIn('id', links.map((l) => l.carrierId)).select('id', 'name')) as { id: string; name: string }[]).map((r) => [r.id, r.name]),
          );
          return {
            body: {
              id: m.id,
              slug: m.slug,
              name: m.name,
              aliases: m.aliases,
              carriers: links.map((l) => ({ id: l.carrierId, name: names.get(l.carrierId) ?? null, role: l.role, sourceNotes: l.sourceNotes })),
            },
          };
        },
      }),
    ];
  }
}
