import { defineRoute, type RouteModule } from '../../src/http/route';
import { CreateFilingBody, FilingIdParams, ManagedFilingFull, PatchFilingBody } from '../../src/http/schemas/working-filings';
import type { ManagedFilingCommands } from './managed-filing-commands';

const created = (record: { id: string }) => ({ status: 201, headers: { Location: `/api/v2/managed-filings/${record.id}` }, body: record });

/** POST /managed-filings (create) and PATCH /managed-filings/{filingId} (extension: edit filing fields). */
export class FilingWriteRoutes implements RouteModule {
  constructor(private readonly commands: ManagedFilingCommands) {}

  routes() {
    return [
      defineRoute({
        method: 'post',
        paths: ['/managed-filings', '/insurance/managed-filings'],
        operationId: ['createManagedFiling', 'createInsuranceManagedFiling'],
        idempotencyKey: 'honored',
        summary: 'Create a working filing',
        description:
          'Required: scope, companyId, jurisdictionId, primaryProductId, filingType. The scope must be an active scope of the caller\'s tenant where the caller is editor or manager (404 for a scope it cannot see, 403 for one it can see but not change); companyId, jurisdictionId and product ids must come from that scope\'s listings (400). Answers 201 with the full record and Location: /api/v2/managed-filings/{id}.',
        tags: ['working filings'],
        body: CreateFilingBody,
        responses: { 201: { description: 'The created filing', schema: ManagedFilingFull, headers: { Location: { description: 'The detail address' } } } },
        handler: async ({ principal, body, requestId, trace }) => {
          const record = await this.commands.create(principal, body, requestId, trace);
          return created(record);
        },
        recover: async ({ principal, written }) => created(await this.commands.recoverCreate(principal, written)),
      }),
      defineRoute({
        method: 'patch',
        paths: ['/managed-filings/{filingId}'],
        operationId: 'updateManagedFiling',
        summary: 'Edit a working filing\'s fields',
        extension: true,
        description: 'Last write wins. Reference and legacy (null-mode) filings are read-only (403). subToiCode is validated against the resulting filing.',
        tags: ['working filings'],
        params: FilingIdParams,
        body: PatchFilingBody,
        responses: { 200: { description: 'The updated filing', schema: ManagedFilingFull } },
        handler: async ({ principal, body, params, requestId, trace }) => ({ body: await this.commands.update(principal, params.filingId, body, requestId, trace) }),
      }),
    ];
  }
}
