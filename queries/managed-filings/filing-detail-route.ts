import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import type { FilingAccessService } from './filing-access';
import { pointInTime, pointInTimeParams, type FilingHistory } from './filing-history';
import { fullFilingFromRow, fullFilingFromState } from './records';
import { FilingIdParams, ManagedFilingFull } from './schemas';

const Query = z.strictObject(pointInTimeParams);
/** With asOf or atVersion (extension): the filing as it stood and the stream version that reflects. */
const ManagedFilingAt = ManagedFilingFull.extend({
  version: z.number().int().openapi({ description: 'The stream version the answer reflects.' }),
}).openapi('ManagedFilingAt');
const ManagedFilingDetail = z.union([ManagedFilingFull, ManagedFilingAt]);

/** GET /managed-filings/{filingId}: the full record with the caller's permissions. */
export class FilingDetailRoute implements RouteModule {
  constructor(private readonly access: FilingAccessService, private readonly history: FilingHistory) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/managed-filings/{filingId}'],
        operationId: 'getManagedFiling',
        summary: 'A working filing',
        description:
          'The working filing with its fields, its current state and the caller\'s permissions on it. The address `Location` names after a create. 404 when the filing does not exist or the caller cannot see it. Extension: `asOf` (ISO 8601 date-time) or `atVersion` (stream version) answers the filing as it stood then, rebuilt from its event log, plus `version`; 404 before it existed, 400 for a bad value or both at once. Access is checked as for reading it now.',
        tags: ['working filings'],
        params: FilingIdParams,
        query: Query,
        responses: { 200: { description: 'The full filing record', schema: ManagedFilingDetail } },
        handler: async ({ principal, params, query }) => {
          const a = await this.access.filing(principal, params.filingId);
          const p = pointInTime(query);
          if (p) {
            const at = await this.history.at(a.row.id, p);
            return { headers: { 'Cache-Control': 'private, no-store' }, body: { ...fullFilingFromState(at.state, a.permissions), version: at.version } };
          }
          return { headers: { 'Cache-Control': 'private, no-store' }, body: fullFilingFromRow(a.row, a.permissions) };
        },
      }),
    ];
  }
}
