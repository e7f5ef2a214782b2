import { defineRoute, type RouteModule } from '../../src/http/route';
import type { FilingAccessService } from '../../src/read-models/working-filings/filing-access';
import { fullFilingFromRow } from '../../src/read-models/working-filings/records';
import { FilingIdParams, ManagedFilingFull } from '../../src/http/schemas/working-filings';

/** GET /managed-filings/{filingId}: the full record with the caller's permissions. */
export class FilingDetailRoute implements RouteModule {
  constructor(private readonly access: FilingAccessService) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/managed-filings/{filingId}'],
        operationId: 'getManagedFiling',
        summary: 'A working filing',
        description:
          'The working filing with its fields, its current state and the caller\'s permissions on it. The address `Location` names after a create. 404 when the filing does not exist or the caller cannot see it.',
        tags: ['working filings'],
        params: FilingIdParams,
        responses: { 200: { description: 'The full filing record', schema: ManagedFilingFull } },
        handler: async ({ principal, params }) => {
          const a = await this.access.filing(principal, params.filingId);
          return { headers: { 'Cache-Control': 'private, no-store' }, body: fullFilingFromRow(a.row, a.permissions) };
        },
      }),
    ];
  }
}
