import type { Knex } from 'knex';
import { CATALOG_FILINGS } from '../../src/read-models/catalog';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { cursorParam, qInt, qList, qScalar } from '../../src/http/validation';
import { z } from '../../src/http/zod';
import { carriersWithGroup, toCarrier, type CarrierListRow } from './carrier-record';
import { Carrier, nameParam } from './directory-schemas';
import { offsetPage, requireNaic } from './directory-paging';

export const identifierParam = z
  .string()
  .max(200)
  // [\s\S], not `.`: the document's pattern must mean what the server checks, and `.` excludes different line
  // breaks in JavaScript (\r, \u2028 too) than in other regex dialects clients validate with (Python: only \n).
  .regex(/^[a-z][a-z0-9_]*:[\s\S]+$/, 'Form <scheme>:<value>, for example naic_company:12345.')
  .transform((s) => ({ scheme: s.slice(0, s.indexOf(':')), value: s.slice(s.indexOf(':') + 1) }));

const Query = z.strictObject({
  name: qScalar(nameParam).optional().describe('Case-insensitive substring of the name or any alias.'),
  identifier: qList(identifierParam).optional(),
  group: qList(nameParam).optional().describe('Carrier group ID.'),
  state: qList(z.string().regex(/^[A-Za-z]{2}$/, 'Two letters.').transform((s) => s.toUpperCase())).optional().describe('Catalog filing activity in this state in the last 12 months.'),
  toi: qList(z.string().min(1).max(20).regex(/^\d+(\.\d+)*$/)).optional().describe('Catalog filing activity with this TOI code in the last 12 months.'),
  limit: qInt(1, 200, 50).optional(),
  cursor: cursorParam().optional(),
});

/** GET /insurance/carriers. Merged carriers are not listed: their ids answer with the survivor's record. */
export class ListCarriersRoute implements RouteModule {
  constructor(private readonly knex: Knex, private readonly cursors: CursorService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/carriers'],
        operationId: 'listCarriers',
        summary: 'List carriers',
        tags: ['directories'],
        description:
          'state and toi reflect catalog filing activity in the last 12 months (a filing of the carrier\'s current NAIC code whose submission, disposition or state status date falls in that window); domicile is not the filing state. Offset pages.',
        query: Query,
        responses: { 200: { description: 'A page of carriers', schema: z.object({ carriers: z.array(Carrier), nextCursor: z.string().nullable() }) } },
        handler: async ({ query, principal }) => {
          requireNaic(principal);
          const { cursor, ...request } = query;
          const limit = query.limit ?? 50;
          const page = await offsetPage(this.cursors, { kind: 'directory.carriers', principal, request: { ...request, limit } }, cursor, limit, (offset, n) => {
            const qb = carriersWithGroup(this.knex).whereNull('c.merged_into');
            if (query.name) qb.whereRaw('strpos(c.search, ?) > 0', [query.name.toLowerCase()]);
            if (query.identifier) {
              qb.where((w) => {
                for (const i of query.identifier!) {
                  const value = i.scheme === 'naic_company' && /^\d{1,5}$/.test(i.value) ? i.value.padStart(5, '0') : i.value;
                  w.orWhereRaw('c.identifiers @> ?::jsonb', [JSON.stringify([{ scheme: i.scheme, value }])]);
                }
              });
            }
            if (query.group) qb.whereIn('c.group_id', query.group);
            if (query.state || query.toi) {
              qb.whereExists((sub) => {
                sub
                  .select(this.knex.raw('1'))
                  .from(`${CATALOG_FILINGS} as f`)
                  .whereRaw('f.naic_company_codes && c.naic_codes')
                  .whereRaw(`greatest(f.submission_date, f.disposition_date, f.state_status_changed_date) >= current_date - interval '12 months'`);
                if (query.state) sub.whereIn('f.state', query.state);
                if (query.toi) sub.whereIn('f.toi_code', query.toi);
              });
            }
            return qb.orderBy([{ column: 'c.name' }, { column: 'c.id' }]).offset(offset).limit(n) as unknown as Promise<CarrierListRow[]>;
          });
          return { body: { carriers: page.items.map(toCarrier), nextCursor: page.nextCursor } };
        },
      }),
    ];
  }
}
