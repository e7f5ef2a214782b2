import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt, qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { Mga, nameParam } from './directory-schemas';

const Query = z.strictObject({
  name: qScalar(nameParam).optional().describe('Case-insensitive substring of the name or any alias.'),
  limit: qInt(1, 200, 50).optional(),
  cursor: cursorParam().optional(),
});

/** GET /insurance/mgas: by name then id, keyset cursors bound to the request. */
export class ListMgasRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/mgas'],
        operationId: 'listMgas',
        summary: 'List MGAs',
        description:
          'Managing general agents of the directory, ordered by name, in cursor pages, with the carriers they write for.',
        tags: ['directories'],
        query: Query,
        responses: { 200: { description: 'A page of MGAs', schema: z.object({ mgas: z.array(Mga), nextCursor: z.string().nullable() }) } },
        handler: async ({ query, principal }) => {
          const { cursor, ...request } = query;
          const limit = query.limit ?? 50;
          const binding = { kind: 'directory.mgas', principal, request: { ...request, limit } };
          const decoded = cursor ? await this.cursors.decode<{ name: string; id: string }>(binding, cursor) : null;
          const qb = this.knex(DIR.mgas).select('id', 'slug', 'name', 'aliases');
          if (query.name) qb.whereRaw('strpos(search, ?) > 0', [query.name.toLowerCase()]);
          if (decoded) qb.whereRaw('(name, id) > (?, ?)', [decoded.state.name, decoded.state.id]);
          const rows = (await qb.orderBy([{ column: 'name' }, { column: 'id' }]).limit(limit + 1)) as { id: string; slug: string; name: string; aliases: string[] }[];
          const page = rows.slice(0, limit);
          const last = page[page.length - 1];
          const nextCursor = rows.length > limit ? await this.cursors.encode(binding, { name: last.name, id: last.id }, decoded?.issuedAt) : null;
          return { body: { mgas: page, nextCursor } };
        },
      }),
    ];
  }
}
