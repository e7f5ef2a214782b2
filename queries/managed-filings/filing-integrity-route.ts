import type { EventStore } from '../../infra/eventstore/event-store';
import { verifyStream } from '../../infra/eventstore/chain-audit';
import { defineRoute, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import type { FilingAccessService } from './filing-access';
import { FilingIdParams } from './schemas';

const Integrity = z
  .object({
    version: z.number().int(),
    headHash: z.string().nullable(),
    verified: z.boolean(),
    firstBrokenVersion: z.number().int().nullable(),
  })
  .openapi('ManagedFilingIntegrity');

/**
 * GET /managed-filings/{filingId}/integrity (extension): the filing's hash chain recomputed from its
 * event stream (not a read model: the point is to check the log itself).
 */
export class FilingIntegrityRoute implements RouteModule {
  constructor(private readonly access: FilingAccessService, private readonly store: EventStore) {}

  routes() {
    return [
      defineRoute({
        method: 'get',
        paths: ['/managed-filings/{filingId}/integrity'],
        operationId: 'getManagedFilingIntegrity',
        summary: 'Tamper evidence of a working filing\'s history',
        extension: true,
        description:
          'Recomputes the SHA-256 chain of the filing\'s events (each event\'s hash covers the RFC 8785 canonical JSON of its stream id, version, type, schema version, data, metadata without the hashes, recorded time and the previous event\'s hash). `version`: the stream version; `headHash`: the hash of the last event verified; `firstBrokenVersion`: the first version whose event is missing, moved or altered (null when verified). Needs filing read access.',
        tags: ['working filings'],
        params: FilingIdParams,
        responses: { 200: { description: 'The chain\'s verdict', schema: Integrity } },
        handler: async ({ principal, params }) => {
          const a = await this.access.filing(principal, params.filingId);
          const v = await verifyStream(this.store, `managedFiling-${a.row.id}`);
          return { headers: { 'Cache-Control': 'private, no-store' }, body: v };
        },
      }),
    ];
  }
}
