/**
 * OpenAPI `links`: where one answer's id is the input of another operation, so a reader (and a stateful
 * test generator) can follow them. By the source operationId, then its status.
 */
interface Link {
  operationId: string;
  parameters?: Record<string, string>;
  requestBody?: unknown;
  description: string;
}
type Links = Record<string, Record<number, Record<string, Link>>>;

const body = (pointer: string) => `$response.body#${pointer}`;

/** Every operation taking `{name}` from `pointer` of the answer, named after the target operation. */
function feeds(name: string, pointer: string, targets: string[], what: string): Record<string, Link> {
  return Object.fromEntries(targets.map((t) => [t, { operationId: t, parameters: { [name]: body(pointer) }, description: `${what} (\`${name}\` = ${pointer}).` }]));
}

/**
 * Only operations whose other inputs the schemas state fully: PATCH of the filing, a new item or a new comment
 * also take ids that must name stored records of the filing's scope (listing products, artifacts, comments),
 * so following a link with schema-valid values could still be a 400; they are described, not linked.
 */
const FILING_READS = ['getManagedFiling', 'listManagedFilingItems', 'listFilingComments', 'listManagedFilingEvents'];
const COMMENT_WRITES = ['updateFilingComment', 'deleteFilingComment', 'resolveFilingComment', 'reopenFilingComment'];

/** Within one working filing: the filing id of the request, the new record's id of the answer. */
function inFiling(name: string, targets: string[], what: string): Record<string, Link> {
  return Object.fromEntries(
    targets.map((t) => [t, { operationId: t, parameters: { filingId: '$request.path.filingId', [name]: body('/id') }, description: `${what} (\`${name}\` = /id).` }]),
  );
}

export const LINKS: Links = {
  listInsuranceFilings: { 200: feeds('filingId', '/filings/0/id', ['getInsuranceFiling', 'listInsuranceFilingFiles'], 'A listed catalog filing') },
  listFilings: { 200: feeds('filingId', '/filings/0/id', ['getFiling', 'listFilingFiles'], 'A listed catalog filing') },
  getInsuranceFiling: { 200: feeds('filingId', '/id', ['listInsuranceFilingFiles'], "The filing's stored files") },
  getFiling: { 200: feeds('filingId', '/id', ['listFilingFiles'], "The filing's stored files") },
  searchInsuranceFilings: { 200: feeds('filingId', '/filings/0/id', ['getInsuranceFiling', 'listInsuranceFilingFiles'], 'A matching catalog filing') },
  searchFilings: { 200: feeds('filingId', '/filings/0/id', ['getFiling', 'listFilingFiles'], 'A matching catalog filing') },
  listFilingFiles: { 200: feeds('fileId', '/files/0/fileId', ['getFileText', 'downloadFile'], 'A listed file') },
  listInsuranceFilingFiles: { 200: feeds('fileId', '/files/0/fileId', ['getFileText', 'downloadFile'], 'A listed file') },
  listCarriers: { 200: feeds('carrierId', '/carriers/0/id', ['getCarrier'], 'A listed carrier') },
  listCarrierGroups: { 200: feeds('groupId', '/carrierGroups/0/id', ['getCarrierGroup'], 'A listed carrier group') },
  listMgas: { 200: feeds('mgaId', '/mgas/0/id', ['getMga'], 'A listed MGA') },
  listInsuranceProducts: { 200: feeds('productId', '/products/0/id', ['getInsuranceProduct'], 'A listed product') },
  listProducts: { 200: feeds('productId', '/products/0/id', ['getProduct'], 'A listed product') },
  listInsuranceManagedFilings: { 200: feeds('filingId', '/filings/0/id', FILING_READS, 'A listed working filing') },
  listManagedFilings: { 200: feeds('filingId', '/filings/0/id', FILING_READS, 'A listed working filing') },
  createManagedFiling: { 201: feeds('filingId', '/id', FILING_READS, 'The new working filing') },
  createInsuranceManagedFiling: { 201: feeds('filingId', '/id', FILING_READS, 'The new working filing') },
  addFilingComment: { 201: inFiling('commentId', COMMENT_WRITES, 'The new comment') },
  startFileUpload: {
    201: {
      // The signed address is uploadUrl as given (its query carries the signature); the token is its last segment.
      putSignedUpload: { operationId: 'putSignedUpload', parameters: { token: body('/uploadToken') }, description: 'PUT the bytes to `uploadUrl` exactly as given (`token` = /uploadToken; `expires` and `signature` are in its query).' },
      completeFileUploads: { operationId: 'completeFileUploads', requestBody: { confirmations: [{ uploadToken: `{${body('/uploadToken')}}` }] }, description: 'After the PUT, confirm the upload with its token.' },
    },
  },
  completeFileUploads: { 200: feeds('artifactId', '/results/0/artifact/id', ['getArtifact'], 'The stored artifact') },
};
