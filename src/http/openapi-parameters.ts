/**
 * Descriptions and examples of parameters that recur across operations, by location and name. A route's
 * own description or example wins; this fills the rest, so one parameter reads the same everywhere.
 * Examples are values of the demo data set (`ifrs demo seed`, default seed): a reader can paste them.
 */
export interface ParameterDoc {
  description: string;
  example?: unknown;
}

const DEMO = {
  catalogFilingId: 'bc0c79c7-e4fe-452d-9a8f-e293438dcbff',
  fileId: 'f810324b-b7b4-4bc7-b635-73b2a47e4c86',
  carrierId: 'carrier_20382',
  groupId: 'carrier_group_3294',
  mgaId: 'mga_coastal-risk-partners',
  productId: 'product_1001',
  scope: 'mc:4b0e8f3a-1c2d-4e5f-8a9b-0c1d2e3f4a5b',
  uuid: '0d6f5a4e-8c1b-4f8e-9a3c-2b7d1e6f4a90',
};

const range = (what: string): ParameterDoc => ({ description: `${what} (YYYY-MM-DD, inclusive).`, example: '2024-01-01' });

export const PARAMETER_DOCS: Record<string, ParameterDoc> = {
  'path:filingId': { description: 'A filing id (UUID): a catalog filing for catalog routes, a working filing under /managed-filings.', example: DEMO.catalogFilingId },
  'path:fileId': { description: 'A stored file id (UUID), as listed in a filing\'s file inventory.', example: DEMO.fileId },
  'path:artifactId': { description: 'A working file (artifact) id (UUID), as returned by upload completion.', example: DEMO.uuid },
  'path:itemId': { description: 'An item id (UUID) of the working filing.', example: DEMO.uuid },
  'path:commentId': { description: 'A comment id (UUID) of the working filing.', example: DEMO.uuid },
  'path:carrierId': { description: 'A directory carrier id.', example: DEMO.carrierId },
  'path:groupId': { description: 'A directory carrier group id.', example: DEMO.groupId },
  'path:mgaId': { description: 'A directory MGA id.', example: DEMO.mgaId },
  'path:productId': { description: 'A directory product id.', example: DEMO.productId },
  'path:state': { description: 'A two-letter state code where the product is available.', example: 'MA' },
  'path:token': { description: 'The upload token of a signed upload address (from POST /files/uploads); part of the signed address, not a key.', example: 'AXW3kq0c9fJr2mT8u1sLZQ' },
  'path:version': { description: 'The file version id the signed address was issued for (also sent as File-Version-Id).', example: 'sha256-b9bfd56ba05478a68127635f85b39f6f' },
  'path:grant': { description: 'The grant of a signed download address; part of its signature.', example: 'VomvT1cNHrKV' },
  'query:expires': { description: 'Expiry of a signed address (Unix seconds); part of its signature.', example: '1795319142' },
  'query:signature': { description: 'HMAC signature of a signed address; an altered address is 403.', example: 'WJjHq2xv0bS7cY1nKpLr8A' },
  'query:limit': { description: 'Page size; the operation states its range and default.', example: 20 },
  'query:cursor': { description: 'The `nextCursor` of the previous page, unchanged; it is bound to the caller and to every other parameter of the request (400 `invalid_cursor` otherwise).', example: 'AWdrAmQ6fpK5Zx0T3vYc1g' },
  'query:state': { description: 'Two-letter state code; repeat for several (OR).', example: 'FL' },
  'query:source': { description: 'The catalog source: `serff` (needs serff:view) or `florida_irfs`.', example: 'florida_irfs' },
  'query:companyName': { description: 'Exact company name as filed; repeat for several (OR).', example: 'Thornbury Indemnity Company of America' },
  'query:productName': { description: 'Exact product name as filed; repeat for several (OR).', example: 'Thornbury SafeMiles' },
  'query:companyNameContains': { description: 'Case-insensitive substring of the company name.', example: 'thornbury' },
  'query:productNameContains': { description: 'Case-insensitive substring of the product name.', example: 'safemiles' },
  'query:businessType': { description: 'Business type as filed (e.g. Property & Casualty); repeat for several (OR).', example: 'Property & Casualty' },
  'query:normalizedOutcome': { description: 'Normalized disposition outcome; repeat for several (OR).', example: 'APPROVED' },
  'query:filingTypeNormalized': { description: 'Normalized filing type; repeat for several (OR).', example: 'RATE' },
  'query:filingType': { description: 'The source\'s own filing type text; needs exactly one `source`.', example: 'Rate/Rule' },
  'query:sourceStatus': { description: 'The source\'s own status text; needs exactly one `source`.', example: 'FILED' },
  'query:submissionDateFrom': range('Submitted on or after'),
  'query:submissionDateTo': range('Submitted on or before'),
  'query:dispositionDateFrom': range('Disposed on or after'),
  'query:dispositionDateTo': range('Disposed on or before'),
  'query:stateStatusChangedDateFrom': range('State status changed on or after'),
  'query:stateStatusChangedDateTo': range('State status changed on or before'),
  'query:toi': { description: 'Normalized type-of-insurance code (digits separated by dots); repeat for several (OR).', example: '19.0' },
  'query:subToi': { description: 'Normalized sub-type-of-insurance code; repeat for several (OR).', example: '19.0003' },
  'query:mga': { description: 'Directory MGA slug; repeat for several (OR).', example: 'coastal-risk-partners' },
  'query:scope': { description: 'The working-filing scope (`mc:` followed by its id).', example: DEMO.scope },
  'query:name': { description: 'Case-insensitive name prefix or substring, as the operation states.', example: 'Crescent' },
  'query:code': { description: 'A code (NAIC company code, state code or product code, by list).', example: '20382' },
  'query:maxBytes': { description: 'Largest chunk in UTF-8 bytes (4 to 1,048,576, default 65,536); a chunk never splits a character.', example: 4096 },
  'query:versionId': { description: 'A file version id to download instead of the current one (see File-Version-Id).', example: 'sha256-b9bfd56ba05478a68127635f85b39f6f' },
  'query:field': { description: 'The working-filing field whose allowed values are listed.', example: 'filingType' },
  'query:status': { description: 'Only open or only resolved comment threads.', example: 'open' },
  'query:identifier': { description: 'An identifier as `scheme:value` (e.g. `naic_company:20382`); repeat for several (OR).', example: 'naic_company:20382' },
  'query:carrier': { description: 'Directory carrier id; repeat for several (OR).', example: DEMO.carrierId },
  'query:excludeCarrier': { description: 'Directory carrier id to leave out; repeat for several.', example: DEMO.carrierId },
  'query:group': { description: 'Directory carrier group id; repeat for several (OR).', example: DEMO.groupId },
  'query:sourceReference': { description: 'Exact native reference (SERFF tracking number or Florida file log number); needs exactly one `source`.', example: '23-018085' },
  'query:sort': { description: 'Sort keys, comma-separated, each once; `-` sorts descending.', example: '-submissionDate' },
  'query:type': { description: 'Product type; repeat for several (OR).', example: 'businessowners' },
  'query:admitted': { description: 'Only admitted (true) or only non-admitted (false) products.', example: true },
};

/** Fills a generated parameter object's description and example from the table, where it has none. */
export function documentParameter(param: { in?: string; name?: string; description?: string; example?: unknown; schema?: { description?: string; example?: unknown } }): void {
  const doc = PARAMETER_DOCS[`${param.in}:${param.name}`];
  if (!doc) return;
  if (!param.description && !param.schema?.description) param.description = doc.description;
  if (doc.example !== undefined && param.example === undefined && param.schema?.example === undefined) param.example = doc.example;
}
