/*
 * `npm run openapi:examples`: records one real request and answer per operation into
 * src/http/openapi-examples.json, which buildOpenApi attaches to the document as examples.
 *
 * Seeds a small demo (`ifrs demo seed`, default seed: the catalog, directory and scope ids are the demo's
 * deterministic ones; working-filing, upload and comment ids are whatever this run creates) in a throw-away
 * data directory, serves it on a free loopback port, calls every operation once in an order where each
 * answer's ids feed the next calls, and trims the answers (two items per list, long texts cut) so the
 * document stays readable. Regenerate the SDKs afterwards (`npm run clients:generate`).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..');
const OUT = path.join(ROOT, 'src', 'http', 'openapi-examples.json');
const IFRS = path.join(ROOT, 'bin', 'ifrs.js');

export interface OperationExample {
  /** The path and query string called (relative to /api/v2): its values become the parameters' examples. */
  url?: string;
  /** The JSON request body sent. */
  request?: unknown;
  /** The JSON answer by status. */
  responses: Record<string, unknown>;
}

/** Lists keep two items, long texts 240 characters: an example shows the shape, not the data set. */
export function trim(value: unknown): unknown {
  if (Array.isArray(value)) return value.slice(0, 2).map(trim);
  if (typeof value === 'string') return value.length > 240 ? `${value.slice(0, 237)}...` : value;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, trim(v)]));
  return value;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function waitHealthy(base: string): Promise<void> {
  for (let i = 0; i < 240; i++) {
    try {
      if ((await fetch(`${base}/healthz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the demo server did not become healthy');
}

async function record(api: string, key: string): Promise<Record<string, OperationExample>> {
  const examples: Record<string, OperationExample> = {};
  const call = async (operationId: string, method: string, url: string, body?: unknown, expect = 200): Promise<any> => {
    const r = await fetch(api + url, {
      method,
      redirect: 'manual',
      headers: { Authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await r.text();
    if (r.status !== expect) throw new Error(`${operationId}: ${method} ${url} answered ${r.status}, expected ${expect}: ${text.slice(0, 500)}`);
    const json = text && (r.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(text) : undefined;
    const example: OperationExample = (examples[operationId] ??= { responses: {} });
    example.url ??= url;
    if (body !== undefined) example.request = body;
    if (json !== undefined) example.responses[String(r.status)] = trim(json);
    return json ?? r;
  };

  await call('getCurrentUser', 'GET', '/users/me');

  // Catalog, files and search.
  const q = '?state=AR&sort=-submissionDate&limit=2';
  const filings = await call('listInsuranceFilings', 'GET', `/insurance/filings${q}`);
  await call('listFilings', 'GET', `/filings${q}`);
  const filingId = filings.filings[0].id;
  await call('getInsuranceFiling', 'GET', `/insurance/filings/${filingId}`);
  await call('getFiling', 'GET', `/filings/${filingId}`);
  const files = await call('listFilingFiles', 'GET', `/filings/${filingId}/files?limit=2`);
  await call('listInsuranceFilingFiles', 'GET', `/insurance/filings/${filingId}/files?limit=2`);
  const fileId = files.files[0].fileId;
  await call('getFileText', 'GET', `/files/${fileId}/text?maxBytes=600`);
  await call('downloadFile', 'GET', `/files/${fileId}/download`, undefined, 302);
  const search = { query: 'wildfire surcharge roof age', includePassages: true, limit: 2 };
  await call('searchInsuranceFilings', 'POST', '/insurance/filings/search', { ...search, intent: 'how homeowners filings justify wildfire surcharges and roof age rating' });
  await call('searchFilings', 'POST', '/filings/search', { ...search, filters: [{ field: 'state', operator: 'in', value: ['AR', 'FL', 'TX'] }], sort: [{ field: 'relevance', direction: 'desc' }] });

  // Directories.
  const carriers = await call('listCarriers', 'GET', '/insurance/carriers?limit=2');
  await call('getCarrier', 'GET', `/insurance/carriers/${carriers.carriers[0].id}`);
  const groups = await call('listCarrierGroups', 'GET', '/insurance/carrier-groups?limit=2');
  await call('getCarrierGroup', 'GET', `/insurance/carrier-groups/${groups.carrierGroups[0].id}`);
  const mgas = await call('listMgas', 'GET', '/insurance/mgas?limit=2');
  await call('getMga', 'GET', `/insurance/mgas/${mgas.mgas[0].id}`);
  const products = await call('listInsuranceProducts', 'GET', '/insurance/products?limit=2');
  await call('listProducts', 'GET', '/products?limit=2');
  // A product and state with recorded filings, so the availability filings example has rows.
  const candidates = (await call('scratch', 'GET', '/insurance/products?limit=100')).products;
  let product = products.products[0];
  let state = encodeURIComponent(product.availabilitySummary.states[0] ?? 'FL');
  search: for (const p of candidates) {
    for (const st of p.availabilitySummary.states) {
      if ((await call('scratch', 'GET', `/insurance/products/${p.id}/availability/${encodeURIComponent(st)}/filings`)).filings.length) {
        [product, state] = [p, encodeURIComponent(st)];
        break search;
      }
    }
  }
  delete examples.scratch;
  await call('getInsuranceProduct', 'GET', `/insurance/products/${product.id}`);
  await call('getProduct', 'GET', `/products/${product.id}`);
  await call('listInsuranceProductAvailabilityFilings', 'GET', `/insurance/products/${product.id}/availability/${state}/filings`);
  await call('listProductAvailabilityFilings', 'GET', `/products/${product.id}/availability/${state}/filings`);

  // Working filings: the demo scope's listings feed a new filing, which items, comments and uploads use.
  const managed = await call('listInsuranceManagedFilings', 'GET', '/insurance/managed-filings?limit=2');
  await call('listManagedFilings', 'GET', '/managed-filings?limit=2');
  const scope: string = managed.filings[0].scope;
  await call('getManagedFilingFieldOptions', 'GET', '/insurance/managed-filings/field-options?field=subToiCode&dependsOn=04.0');
  const companies = await call('listScopeCompanies', 'GET', `/insurance/managed-filings/companies?scope=${scope}&limit=2`);
  await call('queryScopeCompanies', 'POST', '/insurance/managed-filings/companies', { scope, name: companies.companies[0].name.slice(0, 6), limit: 2 });
  const jurisdictions = await call('listScopeJurisdictions', 'GET', `/insurance/managed-filings/jurisdictions?scope=${scope}&code=FL`);
  await call('queryScopeJurisdictions', 'POST', '/insurance/managed-filings/jurisdictions', { scope, code: 'FL' });
  const scopeProducts = await call('listScopeProducts', 'GET', `/insurance/managed-filings/products?scope=${scope}&limit=2`);
  await call('queryScopeProducts', 'POST', '/insurance/managed-filings/products', { scope, name: scopeProducts.products[0].name.slice(0, 6), limit: 2 });
  const create = {
    scope,
    companyId: companies.companies[0].id,
    jurisdictionId: jurisdictions.jurisdictions[0].id,
    primaryProductId: scopeProducts.products[0].id,
    filingType: 'rate',
    toiCode: '04.0',
    subToiCode: '04.0003',
    description: 'Homeowners rate revision: wildfire surcharge and roof age factors',
    serffTrackingNumber: 'ACME-134567890',
    reviewType: 'prior_approval',
    projectId: null,
    predecessorFilingId: null,
  };
  const created = await call('createManagedFiling', 'POST', '/managed-filings', create, 201);
  await call('createInsuranceManagedFiling', 'POST', '/insurance/managed-filings', { ...create, filingType: 'rule', toiCode: null, subToiCode: null, serffTrackingNumber: null, description: 'Homeowners rule revision: roof age schedule' }, 201);
  const id = created.id;
  await call('updateManagedFiling', 'PATCH', `/managed-filings/${id}`, { disposition: 'pending', description: 'Homeowners rate revision: wildfire surcharge, roof age and protection class factors' });
  await call('getManagedFiling', 'GET', `/managed-filings/${id}`);

  const bytes = Buffer.from('Exhibit 1: rate indications by territory\n');
  const begun = await call('startFileUpload', 'POST', '/files/uploads', { scope, name: 'rate-exhibit-1.txt', mimeType: 'text/plain', size: bytes.length }, 201);
  const put = await fetch(begun.uploadUrl.startsWith('http') ? begun.uploadUrl : new URL(begun.uploadUrl, api).href, { method: 'PUT', body: bytes, headers: { 'Content-Type': 'text/plain' } });
  const putText = await put.text();
  if (!put.ok) throw new Error(`putSignedUpload answered ${put.status}: ${putText}`);
  // Its signed query (expires, signature) is left out: valid only for the recording's key and hour.
  const signedPath = new URL(begun.uploadUrl).pathname.replace(/^\/api\/v2/, '');
  if ((put.headers.get('content-type') ?? '').startsWith('application/json')) examples.putSignedUpload = { url: signedPath, responses: { [String(put.status)]: trim(JSON.parse(putText)) } };
  const completed = await call('completeFileUploads', 'POST', '/files/uploads/complete', { confirmations: [{ uploadToken: begun.uploadToken }] });
  const artifactId = completed.results[0].artifact.id;
  await call('getArtifact', 'GET', `/artifacts/${artifactId}`);

  const item = await call('addManagedFilingItem', 'POST', `/managed-filings/${id}/items`, { artifactId, scheduleType: 'rate', scheduleSeqNo: 1, context: 'Rate indications by territory' }, 201);
  await call('updateManagedFilingItem', 'PATCH', `/managed-filings/${id}/items/${item.id}`, { context: 'Rate indications and selected changes by territory' });
  await call('listManagedFilingItems', 'GET', `/managed-filings/${id}/items?limit=2`);

  const comment = await call('addFilingComment', 'POST', `/managed-filings/${id}/comments`, { body: 'Please add the roof age factor support to exhibit 1.', parentCommentId: null }, 201);
  await call('updateFilingComment', 'PATCH', `/managed-filings/${id}/comments/${comment.id}`, { body: 'Please add the roof age and wildfire factor support to exhibit 1.' });
  await call('resolveFilingComment', 'POST', `/managed-filings/${id}/comments/${comment.id}/resolve`, {});
  await call('reopenFilingComment', 'POST', `/managed-filings/${id}/comments/${comment.id}/reopen`, {});
  const reply = await call('addFilingComment', 'POST', `/managed-filings/${id}/comments`, { body: 'Added; see the new version of exhibit 1.', parentCommentId: comment.id }, 201);
  examples.addFilingComment.request = { body: 'Please add the roof age factor support to exhibit 1.', parentCommentId: null };
  await call('deleteFilingComment', 'DELETE', `/managed-filings/${id}/comments/${reply.id}`, undefined, 204);
  await call('listFilingComments', 'GET', `/managed-filings/${id}/comments?limit=2`);
  await call('listManagedFilingEvents', 'GET', `/managed-filings/${id}/events?limit=2`);
  await call('listManagedFilingChanges', 'GET', `/managed-filings/${id}/changes?limit=2`);
  await call('getManagedFilingIntegrity', 'GET', `/managed-filings/${id}/integrity`);
  return examples;
}

/** The recording server's origin (in signed addresses) becomes a neutral public one. */
function write(examples: Record<string, OperationExample>, base: string): void {
  const sorted = Object.fromEntries(Object.entries(examples).sort(([a], [b]) => a.localeCompare(b)));
  const origin = new URL(base).origin;
  fs.writeFileSync(OUT, `${JSON.stringify(sorted, null, 2).replaceAll(origin, 'https://ifrs.example.com')}\n`);
  process.stdout.write(`wrote ${path.relative(process.cwd(), OUT)} (${Object.keys(sorted).length} operations)\n`);
}

async function main(): Promise<void> {
  // IFRS_EXAMPLES_BASE + IFRS_EXAMPLES_KEY: record against a running demo instead (while editing this script).
  if (process.env.IFRS_EXAMPLES_BASE) return write(await record(process.env.IFRS_EXAMPLES_BASE, process.env.IFRS_EXAMPLES_KEY ?? ''), process.env.IFRS_EXAMPLES_BASE);
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'ifrs-examples-'));
  // The embedded Postgres runs as another user when started as root: it must be able to enter the folder.
  fs.chmodSync(data, 0o755);
  let server: ChildProcess | undefined;
  try {
    const seeded = JSON.parse(execFileSync(process.execPath, [IFRS, '--data-dir', data, 'demo', 'seed', '--filings', '12'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] }));
    const port = await freePort();
    server = spawn(process.execPath, [IFRS, '--data-dir', data, 'serve', '--port', String(port)], { stdio: 'ignore', env: { ...process.env, LOG_LEVEL: 'warn' } });
    const base = `http://127.0.0.1:${port}`;
    await waitHealthy(base);
    write(await record(`${base}/api/v2`, seeded.apiKey), base);
  } finally {
    if (server) {
      const exited = new Promise((r) => server!.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(data, { recursive: true, force: true });
  }
}

if (require.main === module) {
  main().catch((e) => {
    process.stderr.write(`${(e as Error).stack ?? e}\n`);
    process.exit(1);
  });
}
