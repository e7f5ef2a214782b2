import type { Knex } from 'knex';
import { DIR } from '../../src/read-models/directory';
import { notFound } from '../../src/domain/errors';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { carriersWithGroup, toCarrier, type CarrierListRow } from './carrier-record';
import { resolveCarrier } from './directory-resolution';
import { CarrierDetail } from './directory-schemas';
import { requireNaic } from './directory-paging';

/** GET /insurance/carriers/{carrierId}: a merged carrier's id answers with the survivor's record. */
export class GetCarrierRoute implements RouteModule {
  constructor(private readonly knex: Knex) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/insurance/carriers/{carrierId}'],
        operationId: 'getCarrier',
        summary: 'Get a carrier',
        tags: ['directories'],
        description: 'With aliases, groupMembers (the other unmerged carriers of its group) and mgas (MGAs it backs, with the link\'s role and source notes).',
        params: z.strictObject({ carrierId: z.string().max(500) }),
        responses: { 200: { description: 'The carrier', schema: CarrierDetail } },
        handler: async ({ params, principal }) => {
          requireNaic(principal);
          const survivor = await resolveCarrier(this.knex, params.carrierId);
          if (!survivor) throw notFound(`No carrier ${params.carrierId}.`);
          const row = (await carriersWithGroup(this.knex).where('c.id', survivor.id).first()) as CarrierListRow;
          const members = row.group_id
            ? await this.knex(DIR.carriers).where({ group_id: row.group_id }).whereNull('merged_into').whereNot({ id: row.id }).orderBy([{ column: 'name' }, { column: 'id' }]).select('id', 'name')
            : [];
          const mgaRows = (await this.knex(DIR.mgas)
            .whereRaw('carriers @> ?::jsonb', [JSON.stringify([{ carrierId: row.id }])])
            .orderBy([{ column: 'name' }, { column: 'id' }])
            .select('id', 'name', 'carriers')) as { id: string; name: string; carriers: { carrierId: string; role: string; sourceNotes: string | null }[] }[];
          const mgas = mgaRows.map((m) => {
            const link = m.carriers.find((l) => l.carrierId === row.id)!;
            return { id: m.id, name: m.name, role: link.role, sourceNotes: link.sourceNotes };
          });
          return { body: { ...toCarrier(row), aliases: row.aliases, groupMembers: members, mgas } };
        },
      }),
    ];
  }
}
