import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt, qList, qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { CarrierGroup, nameParam } from './directory-schemas';
import { requireNaic } from './directory-paging';
import { identifierParam } from './list-carriers';

const Query = z.strictObject({
  name: qScalar(nameParam).optional().describe('Case-insensitive substring of the name.'),
  identifier: qList(identifierParam).optional().describe('<scheme>:<value> exactly as registered, padding kept (naic_group:0123).'),
  limit: qInt(1, 200, 50).optional(),
  cursor: cursorParam().optional(),
});

interface GroupRow {
  id: string;
  name: string;
  identifiers: { scheme: string; value: string }[];
}

/** GET /insurance/carrier-groups: ordered by name then id; keyset cursors bound to the request for 24 hours. */
export class ListCarrierGroupsRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/carrier-groups'],
        operationId: 'listCarrierGroups',
        summary: 'List carrier groups',
        description:
          'Carrier groups of the directory, ordered by name, in cursor pages. `name` matches case-insensitively; `identifier` is `scheme:value` (e.g. `naic_group:3294`).',
        tags: ['directories'],
        query: Query,
        responses: { 200: { description: 'A page of carrier groups', schema: z.object({ carrierGroups: z.array(CarrierGroup), nextCursor: z.string().nullable() }) } },
        handler: async ({ query, principal }) => {
          requireNaic(principal);
          const { cursor, ...request } = query;
          const limit = query.limit ?? 50;
          const binding = { kind: 'directory.carrierGroups', principal, request: { ...request, limit } };
          const decoded = cursor ? await this.cursors.decode<{ name: string; id: string }>(binding, cursor) : null;
          const qb = this.knex(DIR.groups).select('id', 'name', 'identifiers');
          if (query.name) qb.whereRaw('strpos(search, ?) > 0', [query.name.toLowerCase()]);
          if (query.identifier) qb.where((w) => query.identifier!.forEach((i) => w.orWhereRaw('identifiers @> ?::jsonb', [JSON.stringify([i])])));
          if (decoded) qb.whereRaw('(name, id) > (?, ?)', [decoded.state.name, decoded.state.id]);
          const rows = (await qb.orderBy([{ column: 'name' }, { column: 'id' }]).limit(limit + 1)) as GroupRow[];
          const page = rows.slice(0, limit);
          const last = page[page.length - 1];
          const nextCursor = rows.length > limit ? await this.cursors.encode(binding, { name: last.name, id: last.id }, decoded?.issuedAt) : null;
          return { body: { carrierGroups: page.map((g) => ({ id: g.id, name: g.name, identifiers: g.identifiers })), nextCursor } };
        },
      }),
    ];
  }
}
