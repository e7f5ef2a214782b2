import { defineRoute, type RouteModule } from '../../src/http/route';
import { AddItemBody, FilingIdParams, Item, ItemParams, PatchItemBody } from '../../src/http/schemas/working-filings';
import type { ManagedFilingCommands } from './managed-filing-commands';

/** POST /managed-filings/{filingId}/items (extension) and PATCH .../items/{itemId}. */
export class ItemWriteRoutes implements RouteModule {
  constructor(private readonly commands: ManagedFilingCommands) {}

  routes() {
    return [
      defineRoute({
        method: 'post',
        paths: ['/managed-filings/{filingId}/items'],
        operationId: 'addManagedFilingItem',
        idempotencyKey: 'honored',
        summary: 'Add an item to a working filing',
        extension: true,
        description: 'Needs filing edit permission. artifactId and attachment ids must be artifacts of the filing\'s scope (400 otherwise).',
        tags: ['working filings'],
        params: FilingIdParams,
        body: AddItemBody,
        responses: { 201: { description: 'The new item', schema: Item } },
        handler: async ({ principal, params, body, requestId, trace }) => ({ status: 201, body: await this.commands.addItem(principal, params.filingId, body, requestId, trace) }),
        recover: async ({ params, written }) => ({ status: 201, body: await this.commands.recoverItem(params.filingId, written) }),
      }),
      defineRoute({
        method: 'patch',
        paths: ['/managed-filings/{filingId}/items/{itemId}'],
        operationId: 'updateManagedFilingItem',
        summary: 'Edit or replace an item (last write wins)',
        description: "Needs filing edit permission. Replacing artifactId changes the working reference only; the answer shows the item's artifacts at their current versions.",
        tags: ['working filings'],
        params: ItemParams,
        body: PatchItemBody,
        responses: { 200: { description: 'The updated item', schema: Item } },
        handler: async ({ principal, params, body, requestId, trace }) => ({ body: await this.commands.patchItem(principal, params.filingId, params.itemId, body, requestId, trace) }),
      }),
    ];
  }
}
