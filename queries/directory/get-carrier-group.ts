import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';
import { notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { CarrierGroupDetail } from './directory-schemas';
import { requireNaic } from './directory-paging';

/** GET /insurance/carrier-groups/{groupId}: by managed id (a NAIC code is not an id). */
export class GetCarrierGroupRoute implements RouteModule {
  constructor(private readonly knex: Knex) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/carrier-groups/{groupId}'],
        operationId: 'getCarrierGroup',
        summary: 'Get a carrier group',
        description:
          'One carrier group with its member carriers. 404 when no group has this id.',
        tags: ['directories'],
        params: z.strictObject({ groupId: z.string().max(500) }),
        responses: { 200: { description: 'The carrier group with its members', schema: CarrierGroupDetail } },
        handler: async ({ params, principal }) => {
          requireNaic(principal);
          const g = await this.knex(DIR.groups).where({ id: params.groupId }).first('id', 'name', 'identifiers');
          if (!g) throw notFound(`No carrier group ${params.groupId}.`);
          const members = await this.knex(DIR.carriers).where({ group_id: g.id }).whereNull('merged_into').orderBy([{ column: 'name' }, { column: 'id' }]).select('id', 'name');
          return { body: { id: g.id, name: g.name, identifiers: g.identifiers, members } };
        },
      }),
    ];
  }
}
