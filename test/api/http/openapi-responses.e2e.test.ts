import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import { carrier, carrierGroup, catalogFiling, file, importRecords, mga, product, serffFiling } from '../../support/catalog-records';
import { client, makeCaller, makeScope, startTestRuntime, type ApiResponse, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, importRecord, seedListings, upload, type Listings } from '../../support/working-filings';

// Ajv 8 (with the 2020-12 dialect of OpenAPI 3.1) comes with the document validator the other OpenAPI
// test uses; the top-level `ajv` is eslint's Ajv 6, so it is loaded from that package's own dependencies.
const fromValidator = createRequire(require.resolve('@seriousme/openapi-schema-validator'));
const Ajv2020 = fromValidator('ajv/dist/2020').default;
const addFormats = fromValidator('ajv-formats').default;

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * DESIGN.md: the OpenAPI document "is the single source for validation or is checked against it in
 * tests". Every documented operation is called in every path form (its success case and the main
 * error cases), and each answer's status must be documented for that operation and its body must
 * match the document's schema for that status: a JSON body needs a JSON schema, and a documented
 * JSON schema needs a JSON body.
 */
describe('OpenAPI document against the real responses', () => {
  let t: TestRuntime;
  let doc: any;
  let ajv: any;
  let owner: TestCaller;
  let readOnly: TestCaller;
  let noSerff: TestCaller;
  let noNaic: TestCaller;
  let outsider: TestCaller;
  let scope: string;
  let l: Listings;
  const ids = {
    fl: crypto.randomUUID(),
    serff: crypto.randomUUID(),
    textFile: crypto.randomUUID(),
    noTextFile: crypto.randomUUID(),
    restrictedFile: crypto.randomUUID(),
    product: 'product_oa1',
    referenceFiling: crypto.randomUUID(),
    legacyFiling: crypto.randomUUID(),
  };
  const unknownUuid = '00000000-0000-4000-8000-00000000abcd';
  // Filled by the per-area tests; the generic tests at the end (bounds, bad input, coverage) run over them.
  /** `METHOD path` of every operation answered with a success status. */
  const succeeded = new Set<string>();
  /** A URL of each GET operation that answered 200, with its query string. */
  const okGets = new Map<string, string>();
  /** A URL of each operation with a JSON body that answered a success, by `METHOD docPath`. */
  const okBodies = new Map<string, string>();
  const problems: string[] = [];

  before(async function () {
    this.timeout(60_000);
    t = await startTestRuntime();
    doc = (await client(t.baseUrl).get('/openapi.json')).body;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components });

    owner = await makeCaller(t.rt);
    readOnly = await makeCaller(t.rt, { tenantId: owner.tenantId, readOnly: true });
    noSerff = await makeCaller(t.rt, { tenantId: owner.tenantId, permissions: [] });
    noNaic = await makeCaller(t.rt, { datasets: [] });
    outsider = await makeCaller(t.rt);
    scope = await makeScope(t.rt, owner.tenantId, [
      { userId: owner.userId, role: 'manager' },
      { userId: readOnly.userId, role: 'viewer' },
      { userId: noSerff.userId, role: 'viewer' },
    ]);
    l = await seedListings(t.rt, scope);
    const result = await importRecords(t.rt, [
      carrierGroup(),
      carrier({ aliases: ['Acme'], grossPremiumWritten: { year: 2024, amount: 1234.5 }, cessionRatio: { year: 2024, value: 0.25 } }),
      carrier({ id: 'carrier_54321', name: 'Acme Specialty', identifiers: [], groupId: null, domicile: 'FL' }),
      mga({ carriers: [{ carrierId: 'carrier_12345', role: 'fronting', sourceNotes: 'test' }] }),
      catalogFiling({
        id: ids.fl,
        files: [
          file({ fileId: ids.textFile, content: { base64: Buffer.from('page one\fpage two').toString('base64') }, mimeType: 'text/plain' }),
          file({ fileId: ids.noTextFile, text: null }),
          file({ fileId: ids.restrictedFile, restricted: true, content: { base64: Buffer.from('secret').toString('base64') }, mimeType: 'text/plain' }),
        ],
      }),
      serffFiling({ id: ids.serff }),
      product({
        id: ids.product,
        groupId: 'carrier_group_100',
        mgaId: 'mga_cyber-one',
        availability: [{ state: 'FL', writingCompanyIds: ['carrier_12345'], toiCodes: ['04.0'], subtoiCodes: ['04.0003'], note: null }],
        claims: [{ text: 'Files in Florida', citations: [{ kind: 'filing', filingId: ids.fl }, { kind: 'unavailable', reason: 'internal_source' }] }],
        filings: [{ state: 'FL', filingId: ids.fl }],
      }),
    ]);
    assert.equal(result.failed, 0, JSON.stringify(result.errors));
    // Imported working filings: a reference one and an unclassified legacy one (filingMode null), both read-only.
    for (const [id, filingMode] of [[ids.referenceFiling, 'reference'], [ids.legacyFiling, null]] as const) {
      await importRecord(t.rt, { type: 'managed_filing', scope, id, filingMode, companyId: l.companyId, jurisdictionId: l.jurisdictionId, primaryProductId: l.productId, filingType: 'rate', serffTrackingNumber: 'ACME-123' });
    }
    await t.rt.engine.catchUp();
  });
  after(async () => t?.close());

  /** The schema behind a $ref, and every branch of allOf/anyOf/oneOf, flattened. */
  function branches(schema: any): any[] {
    if (!schema || typeof schema !== 'object') return [];
    if (schema.$ref) return branches(doc.components.schemas[schema.$ref.split('/').pop()]);
    return [schema, ...['allOf', 'anyOf', 'oneOf'].flatMap((k) => (schema[k] ?? []).flatMap(branches))];
  }

  /** Fields of the answer the schema does not name (JSON Schema allows them; the document would be incomplete). */
  function undocumented(schema: any, value: unknown, at: string, out: string[]): void {
    if (value === null || typeof value !== 'object') return;
    const all = branches(schema);
    if (Array.isArray(value)) {
      const items = all.find((b) => b.items)?.items;
      value.slice(0, 5).forEach((v, i) => undocumented(items, v, `${at}[${i}]`, out));
      return;
    }
    const props = Object.assign({}, ...all.map((b) => b.properties ?? {}));
    // A record (additionalProperties with a schema) or a free-form object names no fields.
    if (all.some((b) => b.additionalProperties && b.additionalProperties !== false) || !all.some((b) => b.properties)) return;
    for (const [k, v] of Object.entries(value)) {
      if (!(k in props)) out.push(`${at}.${k}`);
      else undocumented(props[k], v, `${at}.${k}`, out);
    }
  }

  /** The error, if any, of one answer against the document's description of `method docPath`. */
  function mismatch(method: Method, docPath: string, r: ApiResponse): string | null {
    const op = doc.paths[docPath]?.[method];
    if (!op) return `${method.toUpperCase()} ${docPath} is not in the document`;
    const documented = op.responses[String(r.status)];
    if (!documented) return `status ${r.status} is not documented (documented: ${Object.keys(op.responses).join(', ')}); body ${r.text.slice(0, 300)}`;
    const missingHeaders = Object.keys(documented.headers ?? {}).filter((h) => !r.headers.has(h));
    if (missingHeaders.length) return `status ${r.status} lacks the documented header(s) ${missingHeaders.join(', ')}`;
    const schema = documented.content?.['application/json']?.schema;
    const isJson = (r.headers.get('content-type') ?? '').startsWith('application/json');
    if (!schema) return isJson ? `status ${r.status} has a JSON body the document does not describe: ${r.text.slice(0, 300)}` : null;
    if (!isJson) return `status ${r.status} is documented as JSON but the answer is ${r.headers.get('content-type') ?? 'empty'}`;
    const validate = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
    if (validate(r.body)) {
      const extra: string[] = [];
      undocumented(schema, r.body, '', extra);
      return extra.length ? `status ${r.status} body has fields the document does not name: ${extra.join(', ')}` : null;
    }
    return `status ${r.status} body does not match the documented schema: ${ajv.errorsText(validate.errors, { separator: '; ' })}; body ${r.text.slice(0, 300)}`;
  }

  /** Calls `method url` (an instance of docPath), expects `status` and checks the answer against the document. */
  async function call(method: Method, docPath: string, url: string, status: number, o: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}): Promise<ApiResponse> {
    const key = o.key === undefined ? owner.apiKey : (o.key ?? undefined);
    const r = await client(t.baseUrl, key).call(method.toUpperCase(), url, o.body, o.headers);
    const what = `${method.toUpperCase()} ${url} (${docPath})`;
    assert.equal(r.status, status, `${what}: ${r.text.slice(0, 500)}`);
    const problem = mismatch(method, docPath, r);
    if (problem) problems.push(`${what}: ${problem}`);
    if (status < 400) succeeded.add(`${method.toUpperCase()} ${docPath}`);
    // Without a cursor: the later checks change the limit, which a cursor is bound to.
    if (method === 'get' && status === 200 && o.key === undefined && !/[?&]cursor=/.test(url)) okGets.set(docPath, url);
    if (method !== 'get' && status < 400 && o.key === undefined && o.headers === undefined) okBodies.set(`${method} ${docPath}`, url);
    return r;
  }

  /** fetch() refuses a GET with a body; node:http sends one. */
  function getWithBody(url: string, body: string, contentType: string): Promise<ApiResponse> {
    return new Promise((resolve, reject) => {
      const req = http.request(t.baseUrl + url, { method: 'GET', headers: { Authorization: `Bearer ${owner.apiKey}`, 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers = new Headers(Object.entries(res.headers).map(([k, v]) => [k, String(v)] as [string, string]));
          resolve({ status: res.statusCode!, headers, body: text ? JSON.parse(text) : undefined, text });
        });
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  const noProblems = () => {
    const found = problems.splice(0);
    assert.deepEqual(found, [], found.join('\n'));
  };

  it('the mismatch check catches a body that breaks its documented schema', () => {
    const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', 'cache-control': 'no-store' });
    const fake = { status: 200, headers, body: { id: 'u', tenantId: 't' }, text: '' } as ApiResponse;
    assert.match(mismatch('get', '/users/me', fake) ?? '', /must have required property 'name'/);
    assert.match(mismatch('get', '/users/me', { ...fake, status: 418 }) ?? '', /418 is not documented/);
    // Fields the document does not name are reported.
    assert.match(mismatch('get', '/users/me', { ...fake, body: { id: 'u', tenantId: 't', name: null, email: null, role: 'x' } }) ?? '', /fields the document does not name: \.role/);
    // Documented headers are checked: every answer carries X-Request-Id.
    const noRequestId = new Headers({ 'content-type': 'application/json', 'cache-control': 'no-store' });
    assert.match(mismatch('get', '/users/me', { ...fake, headers: noRequestId }) ?? '', /lacks the documented header\(s\) X-Request-Id/);
    // Formats are checked too: a timestamp that is not ISO 8601, a scope that is not mc:<uuid>.
    const list = { ...fake, body: { filings: [{ id: unknownUuid, scope: 'mc:Scope', createdAt: 'yesterday' }], nextCursor: null } };
    const problem = mismatch('get', '/managed-filings', list) ?? '';
    assert.match(problem, /createdAt must match format "date-time"/);
    assert.match(problem, /scope must match pattern/);
  });

  it('identity: GET /users/me (200, 400, 401)', async () => {
    await call('get', '/users/me', '/users/me', 200);
    await call('get', '/users/me', '/users/me', 200, { key: noNaic.apiKey });
    await call('get', '/users/me', '/users/me?x=1', 400);
    await call('get', '/users/me', '/users/me', 401, { key: null });
    await call('get', '/users/me', '/users/me', 401, { key: 'ifrs_not-a-real-key' });
    noProblems();
  });

  it('catalog: list and detail in both path forms (200, 400 invalid_request and invalid_cursor, 401, 403, 404)', async () => {
    for (const p of ['/insurance/filings', '/filings']) {
      await call('get', p, `${p}?limit=1`, 200);
      await call('get', p, `${p}?source=florida_irfs&sourceReference=${encodeURIComponent(String((await call('get', p, `${p}?source=florida_irfs`, 200)).body.filings[0].sourceReference))}`, 200);
      await call('get', p, `${p}?limit=0`, 400);
      await call('get', p, `${p}?bogus=1`, 400);
      await call('get', p, `${p}?cursor=not-a-cursor`, 400);
      await call('get', p, p, 401, { key: null });
      await call('get', p, `${p}?source=serff`, 403, { key: noSerff.apiKey });
      await call('get', p, `${p}?carrier=carrier_99999`, 404);
      await call('get', `${p}/{filingId}`, `${p}/${ids.fl}`, 200);
      await call('get', `${p}/{filingId}`, `${p}/${ids.serff}`, 200);
      await call('get', `${p}/{filingId}`, `${p}/${ids.fl}?bogus=1`, 400);
      await call('get', `${p}/{filingId}`, `${p}/${ids.fl}`, 401, { key: null });
      await call('get', `${p}/{filingId}`, `${p}/${unknownUuid}`, 404);
      await call('get', `${p}/{filingId}`, `${p}/${ids.serff}`, 404, { key: noSerff.apiKey });
    }
    noProblems();
  });

  it('search: both path forms (200, 400, 401, 403, 413, 415)', async () => {
    const bodies: Record<string, Record<string, unknown>> = {
      '/insurance/filings/search': { query: 'page', intent: 'find filings that mention a page of text', includePassages: true, limit: 5 },
      '/filings/search': { query: 'page', includePassages: true, limit: 5 },
    };
    for (const [p, body] of Object.entries(bodies)) {
      const found = await call('post', p, p, 200, { body });
      assert.ok(found.body.filings.length > 0 && found.body.filings[0].matches[0].passages.length > 0, 'the schema is checked on a real result');
      await call('post', p, p, 200, { body: { ...body, includePassages: false } });
      await call('post', p, p, 400, { body: { ...body, bogus: 1 } });
      await call('post', p, p, 400, { body: { ...body, cursor: 'not-a-cursor' } });
      await call('post', p, p, 400, { body: '{"query":' });
      await call('post', p, p, 401, { key: null, body });
      await call('post', p, p, 403, { key: noSerff.apiKey, body: { ...body, filters: [{ field: 'source', operator: 'eq', value: 'serff' }] } });
      await call('post', p, p, 413, { body: { ...body, query: 'x'.repeat(70 * 1024) } });
      await call('post', p, p, 415, { body: JSON.stringify(body), headers: { 'Content-Type': 'text/plain' } });
    }
    noProblems();
  });

  it('stored files: inventory in both path forms, text, download and the signed address (200, 302, 400, 401, 403, 404, 409)', async () => {
    for (const p of ['/filings/{filingId}/files', '/insurance/filings/{filingId}/files']) {
      const url = p.replace('{filingId}', ids.fl);
      const first = await call('get', p, `${url}?limit=1`, 200);
      await call('get', p, `${url}?limit=1&cursor=${encodeURIComponent(first.body.nextCursor)}`, 200);
      await call('get', p, `${url}?limit=0`, 400);
      await call('get', p, `${url}?cursor=not-a-cursor`, 400);
      await call('get', p, url, 401, { key: null });
      await call('get', p, p.replace('{filingId}', unknownUuid), 404);
      await call('get', p, p.replace('{filingId}', ids.serff), 404, { key: noSerff.apiKey });
    }
    const text = '/files/{fileId}/text';
    const chunk = await call('get', text, `/files/${ids.textFile}/text?maxBytes=8`, 200);
    await call('get', text, `/files/${ids.textFile}/text?maxBytes=8&cursor=${encodeURIComponent(chunk.body.nextCursor)}`, 200);
    await call('get', text, `/files/${ids.textFile}/text?maxBytes=1048576`, 200);
    await call('get', text, `/files/${ids.textFile}/text?maxBytes=1`, 400);
    await call('get', text, `/files/${ids.textFile}/text?cursor=not-a-cursor`, 400);
    await call('get', text, `/files/${ids.textFile}/text`, 401, { key: null });
    await call('get', text, `/files/${unknownUuid}/text`, 404);
    await call('get', text, `/files/${ids.noTextFile}/text`, 409);

    const download = '/files/{fileId}/download';
    const redirect = await call('get', download, `/files/${ids.textFile}/download`, 302);
    await call('get', download, `/files/${ids.textFile}/download?bogus=1`, 400);
    await call('get', download, `/files/${ids.textFile}/download`, 401, { key: null });
    await call('get', download, `/files/${ids.restrictedFile}/download`, 403);
    await call('get', download, `/files/${unknownUuid}/download`, 404);
    await call('get', download, `/files/${ids.noTextFile}/download`, 409);

    const signed = '/signed/files/{fileId}/{version}/{grant}';
    const location = new URL(redirect.headers.get('location')!);
    const signedPath = location.pathname.replace(/^\/api\/v2/, '') + location.search;
    await call('get', signed, signedPath, 200, { key: null });
    await call('get', signed, signedPath, 206, { key: null, headers: { Range: 'bytes=0-3' } });
    await call('get', signed, signedPath, 416, { key: null, headers: { Range: 'bytes=9999-10000' } });
    await call('get', signed, signedPath.replace(/signature=[^&]+/, 'signature=AAAA'), 403, { key: null });
    // The signed address ignores credentials: a bad key changes nothing, so the document names no 401.
    await call('get', signed, signedPath, 200, { key: 'ifrs_not-a-real-key' });
    assert.equal(doc.paths[signed].get.responses['401'], undefined, 'a signed address documents no 401');
    assert.equal(doc.paths['/signed/uploads/{token}'].put.responses['401'], undefined, 'a signed address documents no 401');
    noProblems();
  });

  it('directories: carriers, carrier groups, MGAs, products in both path forms (200, 400, 401, 403 dataset_not_enabled, 404)', async () => {
    const naic: [string, string, string][] = [
      ['/insurance/carriers', '/insurance/carriers/{carrierId}', 'carrier_12345'],
      ['/insurance/carrier-groups', '/insurance/carrier-groups/{groupId}', 'carrier_group_100'],
    ];
    for (const [list, detail, id] of naic) {
      await call('get', list, `${list}?limit=5`, 200);
      const paged = await call('get', list, `${list}?limit=1`, 200);
      if (paged.body.nextCursor) await call('get', list, `${list}?limit=1&cursor=${encodeURIComponent(paged.body.nextCursor)}`, 200);
      await call('get', list, `${list}?bogus=1`, 400);
      await call('get', list, list, 401, { key: null });
      await call('get', list, list, 403, { key: noNaic.apiKey });
      const r = await call('get', detail, detail.replace(/\{\w+\}/, id), 200);
      assert.equal(r.body.id, id);
      await call('get', detail, detail.replace(/\{\w+\}/, id), 401, { key: null });
      await call('get', detail, detail.replace(/\{\w+\}/, id), 403, { key: noNaic.apiKey });
      await call('get', detail, detail.replace(/\{\w+\}/, `${id}999`), 404);
    }
    await call('get', '/insurance/carrier-groups', '/insurance/carrier-groups?cursor=not-a-cursor', 400);
    await call('get', '/insurance/mgas', '/insurance/mgas?limit=5', 200);
    await call('get', '/insurance/mgas', '/insurance/mgas?bogus=1', 400);
    await call('get', '/insurance/mgas', '/insurance/mgas', 401, { key: null });
    await call('get', '/insurance/mgas/{mgaId}', '/insurance/mgas/mga_cyber-one', 200);
    await call('get', '/insurance/mgas/{mgaId}', '/insurance/mgas/mga_cyber-one', 401, { key: null });
    await call('get', '/insurance/mgas/{mgaId}', '/insurance/mgas/mga_nobody', 404);
    for (const p of ['/insurance/products', '/products']) {
      await call('get', p, `${p}?limit=5`, 200);
      const filtered = await call('get', p, `${p}?state=FL&group=100`, 200);
      assert.equal(filtered.body.products.length, 1);
      await call('get', p, `${p}?limit=0`, 400);
      await call('get', p, p, 401, { key: null });
      await call('get', `${p}/{productId}`, `${p}/${ids.product}`, 200);
      await call('get', `${p}/{productId}`, `${p}/${ids.product}?bogus=1`, 400);
      await call('get', `${p}/{productId}`, `${p}/${ids.product}`, 401, { key: null });
      await call('get', `${p}/{productId}`, `${p}/product_nothing`, 404);
      const av = `${p}/{productId}/availability/{state}/filings`;
      await call('get', av, `${p}/${ids.product}/availability/FL/filings`, 200);
      await call('get', av, `${p}/${ids.product}/availability/FL/filings?bogus=1`, 400);
      await call('get', av, `${p}/${ids.product}/availability/FL/filings`, 401, { key: null });
      await call('get', av, `${p}/product_nothing/availability/FL/filings`, 404);
    }
    noProblems();
  });

  it('working filings: scope listings, field options, list, create, detail, patch (200, 201, 400, 401, 403, 404)', async () => {
    await call('get', '/insurance/managed-filings/field-options', '/insurance/managed-filings/field-options?field=subToiCode&dependsOn=17.0', 200);
    await call('get', '/insurance/managed-filings/field-options', '/insurance/managed-filings/field-options?field=filingType', 200);
    await call('get', '/insurance/managed-filings/field-options', '/insurance/managed-filings/field-options?field=nope', 400);
    await call('get', '/insurance/managed-filings/field-options', '/insurance/managed-filings/field-options?field=filingType', 401, { key: null });
    for (const k of ['companies', 'jurisdictions', 'products']) {
      const p = `/insurance/managed-filings/${k}`;
      await call('get', p, `${p}?scope=${scope}`, 200);
      await call('post', p, p, 200, { body: { scope } });
      await call('get', p, `${p}?scope=${scope}&bogus=1`, 400);
      await call('post', p, p, 400, { body: { scope, bogus: 1 } });
      await call('get', p, `${p}?scope=${scope}`, 401, { key: null });
      await call('post', p, p, 401, { key: null, body: { scope } });
      await call('get', p, `${p}?scope=${scope}`, 404, { key: outsider.apiKey });
      await call('post', p, p, 404, { key: outsider.apiKey, body: { scope } });
    }

    for (const p of ['/managed-filings', '/insurance/managed-filings']) {
      const created = await call('post', p, p, 201, { body: filingBody(scope, l, { description: 'Created for the OpenAPI check' }) });
      await call('post', p, p, 400, { body: filingBody(scope, l, { bogus: 1 }) });
      await call('post', p, p, 401, { key: null, body: filingBody(scope, l) });
      await call('post', p, p, 403, { key: readOnly.apiKey, body: filingBody(scope, l) });
      await call('post', p, p, 415, { body: JSON.stringify(filingBody(scope, l)), headers: { 'Content-Type': 'text/plain' } });
      const page = await call('get', p, `${p}?limit=1`, 200);
      await call('get', p, `${p}?limit=1&cursor=${encodeURIComponent(page.body.nextCursor)}`, 200);
      const modes = new Set((await call('get', p, `${p}?limit=100`, 200)).body.filings.map((f: any) => f.filingMode));
      assert.deepEqual([...modes].sort(), ['managed', 'reference', null].sort());
      await call('get', p, `${p}?cursor=not-a-cursor`, 400);
      await call('get', p, p, 401, { key: null });
      await call('get', p, p, 403, { key: readOnly.apiKey });
      const detail = `/managed-filings/${created.body.id}`;
      await call('get', '/managed-filings/{filingId}', detail, 200);
      await call('get', '/managed-filings/{filingId}', detail, 200, { key: readOnly.apiKey });
      await call('get', '/managed-filings/{filingId}', `${detail}?bogus=1`, 400);
      await call('get', '/managed-filings/{filingId}', detail, 401, { key: null });
      await call('get', '/managed-filings/{filingId}', detail, 404, { key: outsider.apiKey });
      await call('patch', '/managed-filings/{filingId}', detail, 200, { body: { description: 'Changed', toiCode: '17.0', subToiCode: '17.0001' } });
      await call('patch', '/managed-filings/{filingId}', detail, 400, { body: { bogus: 1 } });
      await call('patch', '/managed-filings/{filingId}', detail, 401, { key: null, body: { description: 'x' } });
      await call('patch', '/managed-filings/{filingId}', detail, 403, { key: noSerff.apiKey, body: { description: 'x' } });
      await call('patch', '/managed-filings/{filingId}', detail, 404, { key: outsider.apiKey, body: { description: 'x' } });
      for (const id of [ids.referenceFiling, ids.legacyFiling]) {
        await call('get', '/managed-filings/{filingId}', `/managed-filings/${id}`, 200);
        await call('patch', '/managed-filings/{filingId}', `/managed-filings/${id}`, 403, { body: { description: 'x' } });
      }
    }
    noProblems();
  });

  it('working filings: items, comments, events, uploads and artifacts (200, 201, 204, 400, 401, 403, 404, 409)', async () => {
    const filingId = (await client(t.baseUrl, owner.apiKey).post('/managed-filings', filingBody(scope, l))).body.id as string;
    const f = `/managed-filings/${filingId}`;

    const begin = await call('post', '/files/uploads', '/files/uploads', 201, { body: { scope, name: 'a.txt', mimeType: 'text/plain', size: 5 } });
    await call('post', '/files/uploads', '/files/uploads', 400, { body: { scope, name: 'a.txt', mimeType: 'text/plain', size: 5, bogus: 1 } });
    await call('post', '/files/uploads', '/files/uploads', 401, { key: null, body: { scope, name: 'a.txt', mimeType: 'text/plain', size: 5 } });
    await call('post', '/files/uploads', '/files/uploads', 403, { key: readOnly.apiKey, body: { scope, name: 'a.txt', mimeType: 'text/plain', size: 5 } });
    const put = new URL(begin.body.uploadUrl);
    const putPath = put.pathname.replace(/^\/api\/v2/, '') + put.search;
    await call('put', '/signed/uploads/{token}', putPath.replace(/signature=[^&]+/, 'signature=AAAA'), 403, { key: null, body: 'hello', headers: { 'Content-Type': 'application/octet-stream' } });
    await call('put', '/signed/uploads/{token}', putPath, 413, { key: null, body: 'hello world', headers: { 'Content-Type': 'application/octet-stream' } });
    await call('put', '/signed/uploads/{token}', putPath, 400, { key: null, body: 'hi', headers: { 'Content-Type': 'application/octet-stream' } });
    await call('put', '/signed/uploads/{token}', putPath, 200, { key: null, body: 'hello', headers: { 'Content-Type': 'application/octet-stream' } });
    const done = await call('post', '/files/uploads/complete', '/files/uploads/complete', 200, { body: { confirmations: [{ uploadToken: begin.body.uploadToken }, { uploadToken: 'nope' }] } });
    const artifact = done.body.results[0].artifact;
    await call('post', '/files/uploads/complete', '/files/uploads/complete', 400, { body: { confirmations: [] } });
    await call('post', '/files/uploads/complete', '/files/uploads/complete', 401, { key: null, body: { confirmations: [{ uploadToken: 'x' }] } });
    await call('get', '/artifacts/{artifactId}', `/artifacts/${artifact.id}`, 200);
    await call('get', '/artifacts/{artifactId}', `/artifacts/${artifact.id}?bogus=1`, 400);
    await call('get', '/artifacts/{artifactId}', `/artifacts/${artifact.id}`, 401, { key: null });
    await call('get', '/artifacts/{artifactId}', `/artifacts/${artifact.id}`, 404, { key: outsider.apiKey });
    const second = (await upload(t.baseUrl, owner.apiKey, scope, 'second')).artifact;

    const items = '/managed-filings/{filingId}/items';
    const item = await call('post', items, `${f}/items`, 201, { body: { artifactId: artifact.id, scheduleType: 'form', scheduleSeqNo: 1, attachments: [{ artifactId: second.id, artifactName: 'b' }] } });
    await call('post', items, `${f}/items`, 201, { body: { artifactId: second.id } });
    await call('post', items, `${f}/items`, 400, { body: { artifactId: artifact.id, bogus: 1 } });
    await call('post', items, `${f}/items`, 401, { key: null, body: { artifactId: artifact.id } });
    await call('post', items, `${f}/items`, 403, { key: noSerff.apiKey, body: { artifactId: artifact.id } });
    await call('post', items, `${f}/items`, 404, { key: outsider.apiKey, body: { artifactId: artifact.id } });
    await call('get', items, `${f}/items?limit=1`, 200);
    await call('get', items, `${f}/items?cursor=not-a-cursor`, 400);
    await call('get', items, `${f}/items`, 401, { key: null });
    await call('get', items, `${f}/items`, 404, { key: outsider.apiKey });
    const itemPath = '/managed-filings/{filingId}/items/{itemId}';
    const itemUrl = `${f}/items/${item.body.id}`;
    await call('patch', itemPath, itemUrl, 200, { body: { scheduleType: null, scheduleSeqNo: null, context: 'Unscheduled' } });
    await call('patch', itemPath, itemUrl, 400, { body: { scheduleSeqNo: 0 } });
    await call('patch', itemPath, itemUrl, 401, { key: null, body: { context: 'x' } });
    await call('patch', itemPath, itemUrl, 403, { key: noSerff.apiKey, body: { context: 'x' } });
    await call('patch', itemPath, `${f}/items/${unknownUuid}`, 404, { body: { context: 'x' } });

    const comments = '/managed-filings/{filingId}/comments';
    const thread = await call('post', comments, `${f}/comments`, 201, { body: { body: 'First' } });
    const reply = await call('post', comments, `${f}/comments`, 201, { body: { body: 'Reply', parentCommentId: thread.body.id } });
    await call('post', comments, `${f}/comments`, 400, { body: { body: '' } });
    await call('post', comments, `${f}/comments`, 401, { key: null, body: { body: 'x' } });
    await call('post', comments, `${f}/comments`, 404, { key: outsider.apiKey, body: { body: 'x' } });
    const one = '/managed-filings/{filingId}/comments/{commentId}';
    await call('patch', one, `${f}/comments/${reply.body.id}`, 200, { body: { body: 'Edited' } });
    await call('patch', one, `${f}/comments/${reply.body.id}`, 400, { body: { body: 'x', bogus: 1 } });
    await call('patch', one, `${f}/comments/${reply.body.id}`, 401, { key: null, body: { body: 'x' } });
    await call('patch', one, `${f}/comments/${reply.body.id}`, 404, { key: outsider.apiKey, body: { body: 'x' } });
    for (const action of ['resolve', 'reopen']) {
      const p = `/managed-filings/{filingId}/comments/{commentId}/${action}`;
      await call('post', p, `${f}/comments/${thread.body.id}/${action}`, 200, { body: {} });
      await call('post', p, `${f}/comments/${thread.body.id}/${action}`, 400, { body: { bogus: 1 } });
      await call('post', p, `${f}/comments/${thread.body.id}/${action}`, 401, { key: null, body: {} });
      await call('post', p, `${f}/comments/${thread.body.id}/${action}`, 404, { key: outsider.apiKey, body: {} });
    }
    // DESIGN names `{}` as their body; an absent body is read as {}, so the document does not require one.
    await call('post', '/managed-filings/{filingId}/comments/{commentId}/resolve', `${f}/comments/${thread.body.id}/resolve`, 200);
    assert.equal(doc.paths['/managed-filings/{filingId}/comments/{commentId}/resolve'].post.requestBody.required, false);
    assert.equal(doc.paths['/managed-filings'].post.requestBody.required, true);
    await call('post', '/managed-filings', '/managed-filings', 400, { body: '' });
    await call('delete', one, `${f}/comments/${reply.body.id}`, 401, { key: null });
    await call('delete', one, `${f}/comments/${reply.body.id}`, 404, { key: outsider.apiKey });
    await call('delete', one, `${f}/comments/${reply.body.id}`, 204);
    await call('patch', one, `${f}/comments/${reply.body.id}`, 409, { body: { body: 'Edit a tombstone' } });
    await call('get', comments, `${f}/comments?limit=2`, 200);
    await call('get', comments, `${f}/comments?status=resolved`, 200);
    await call('get', comments, `${f}/comments?status=closed`, 400);
    await call('get', comments, `${f}/comments`, 401, { key: null });
    await call('get', comments, `${f}/comments`, 404, { key: outsider.apiKey });

    const events = '/managed-filings/{filingId}/events';
    await call('get', events, `${f}/events?limit=2`, 200);
    await call('get', events, `${f}/events?cursor=not-a-cursor`, 400);
    await call('get', events, `${f}/events`, 401, { key: null });
    await call('get', events, `${f}/events`, 404, { key: outsider.apiKey });
    noProblems();
  });

  it('every documented query parameter has a typed schema (the document states what the server validates)', () => {
    const untyped: string[] = [];
    for (const [p, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [m, op] of Object.entries<any>(ops)) {
        for (const param of op.parameters ?? []) if (!param.schema?.type && !param.schema?.anyOf) untyped.push(`${m.toUpperCase()} ${p} ${param.in} ${param.name}`);
      }
    }
    assert.deepEqual(untyped, []);
  });

  it('documented repeat bounds are the enforced ones: one value more than maxItems is 400 invalid_request (set filters 100, sort keys 3)', async () => {
    let checked = 0;
    for (const [docPath, url] of okGets) {
      for (const param of doc.paths[docPath].get.parameters ?? []) {
        const list = param.schema?.anyOf?.find((b: any) => b.type === 'array');
        if (param.in !== 'query' || !list?.maxItems) continue;
        // A value the item schema accepts: an enum's first, else a two-letter code (state patterns) or a short word.
        const item = list.items;
        const value = item.enum?.[0] ?? (item.pattern?.includes('{2}') ? 'FL' : item.pattern?.includes('\\d') ? '04.0' : 'abc');
        const base = url.replace(new RegExp(`([?&])${param.name}=[^&]*&?`, 'g'), '$1').replace(/[?&]$/, '');
        const repeated = Array.from({ length: list.maxItems + 1 }, () => `${param.name}=${encodeURIComponent(value)}`).join('&');
        const r = await call('get', docPath, `${base}${base.includes('?') ? '&' : '?'}${repeated}`, 400);
        assert.ok(r.body.details.some((d: any) => d.location === 'query' && d.path[0] === param.name), `${docPath} ${param.name}: ${r.text}`);
        checked++;
      }
    }
    assert.ok(checked >= 20, `checked ${checked} repeatable parameters`);
    assert.equal(doc.paths['/insurance/filings'].get.parameters.find((x: any) => x.name === 'sort').schema.anyOf[1].maxItems, 3);
    assert.equal(doc.paths['/insurance/filings'].get.parameters.find((x: any) => x.name === 'state').schema.anyOf[1].maxItems, 100);
    noProblems();
  });

  it('response schemas leave no field optional but those the contract omits (DESIGN: nullable fields are present as null)', () => {
    // The spec's own omissions: details and dataset of an error, description outside a lookup, passages when not asked for.
    const mayBeOmitted = new Set(['Error.details', 'Error.dataset', 'CatalogFiling.description', 'SearchMatch.passages']);
    const optional = new Set<string>();
    const seen = new Set<string>();
    const walk = (schema: any, at: string): void => {
      if (!schema || typeof schema !== 'object') return;
      if (schema.$ref) {
        const name = schema.$ref.split('/').pop();
        if (!seen.has(name)) {
          seen.add(name);
          walk(doc.components.schemas[name], name);
        }
        return;
      }
      const required = new Set(schema.required ?? []);
      for (const [k, v] of Object.entries<any>(schema.properties ?? {})) {
        if (!required.has(k)) optional.add(`${at}.${k}`);
        walk(v, `${at}.${k}`);
      }
      if (schema.items) walk(schema.items, `${at}[]`);
      for (const k of ['allOf', 'anyOf', 'oneOf']) for (const s of schema[k] ?? []) walk(s, at);
    };
    for (const [p, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [m, op] of Object.entries<any>(ops)) {
        for (const [status, r] of Object.entries<any>(op.responses)) walk(r.content?.['application/json']?.schema, `${m.toUpperCase()} ${p} ${status}`);
      }
    }
    assert.deepEqual([...optional].filter((f) => !mayBeOmitted.has(f)), []);
  });

  it('documented integer query bounds are the enforced ones: min and max pass, one beyond is 400 invalid_request', async () => {
    let checked = 0;
    for (const [docPath, url] of okGets) {
      for (const param of doc.paths[docPath].get.parameters ?? []) {
        const { type, minimum, maximum } = param.schema ?? {};
        if (param.in !== 'query' || type !== 'integer') continue;
        const base = url.replace(new RegExp(`([?&])${param.name}=[^&]*&?`), '$1').replace(/[?&]$/, '');
        const withValue = (v: number) => `${base}${base.includes('?') ? '&' : '?'}${param.name}=${v}`;
        for (const v of [minimum, maximum]) await call('get', docPath, withValue(v), 200);
        if (param.schema.default !== undefined) {
          // The documented default is the one applied: the same answer as when it is given (cursors aside).
          const strip = (b: any) => JSON.stringify({ ...b, nextCursor: undefined });
          const [absent, given] = [await call('get', docPath, base, 200), await call('get', docPath, withValue(param.schema.default), 200)];
          assert.equal(strip(absent.body), strip(given.body), `${docPath} ${param.name} default ${param.schema.default}`);
        }
        for (const v of [minimum - 1, maximum + 1]) {
          const r = await call('get', docPath, withValue(v), 400);
          assert.deepEqual(r.body.details.map((d: any) => [d.location, d.path.join('.')]), [['query', param.name]], `${docPath} ${param.name}=${v}`);
        }
        checked++;
      }
    }
    assert.ok(checked >= 15, `checked ${checked} integer parameters`);
    noProblems();
  });

  it('bad bodies on every JSON-body operation answer documented coded errors: malformed 400, not JSON 415, over the limit 413', async () => {
    assert.ok(okBodies.size >= 15, `${okBodies.size} operations`);
    for (const [op, url] of okBodies) {
      const [method, docPath] = op.split(' ') as [Method, string];
      await call(method, docPath, url, 400, { body: '{"broken": ' });
      await call(method, docPath, url, 415, { body: '{}', headers: { 'Content-Type': 'text/plain' } });
      await call(method, docPath, url, 413, { body: JSON.stringify({ pad: 'x'.repeat(1024 * 1024) }) });
    }
    noProblems();
  });

  it('bad input on every GET operation answers a documented 400 or 415: unknown parameter, NUL, a broken %-escape in the path, a non-JSON body', async () => {
    assert.ok(okGets.size >= 25, `${okGets.size} operations`);
    for (const [docPath, url] of okGets) {
      const sep = url.includes('?') ? '&' : '?';
      const unknown = await call('get', docPath, `${url}${sep}bogus=1`, 400);
      assert.ok(unknown.body.details.some((d: any) => d.code === 'unknown_field' && d.location === 'query'), `${docPath}: ${unknown.text}`);
      await call('get', docPath, `${url}${sep}bogus=%00`, 400);
      // A body sent with a GET is read like any other: a non-JSON one is a 415.
      if (!docPath.startsWith('/signed/')) {
        const r = await getWithBody(url, 'x', 'text/plain');
        assert.equal(r.status, 415, `GET ${url} with a text body: ${r.text}`);
        const problem = mismatch('get', docPath, r);
        if (problem) problems.push(`GET ${url} with a text body: ${problem}`);
      }
      const at = docPath.split('/').findIndex((seg) => seg.startsWith('{'));
      if (at > 0 && !docPath.startsWith('/signed/')) {
        const [pathPart, queryPart] = url.split('?');
        const segments = pathPart.split('/');
        segments[at] = '%ZZ';
        await call('get', docPath, `${segments.join('/')}${queryPart ? `?${queryPart}` : ''}`, 400);
      }
    }
    noProblems();
  });

  it('documented defaults are the contract\'s: limit 50 for catalog, search, products, working filings and comments; maxBytes 65,536 (DESIGN)', () => {
    const queryDefault = (p: string, name: string) => doc.paths[p].get.parameters.find((x: any) => x.name === name)?.schema?.default;
    for (const p of ['/insurance/filings', '/filings', '/insurance/products', '/products', '/insurance/managed-filings', '/managed-filings', '/managed-filings/{filingId}/comments']) {
      assert.equal(queryDefault(p, 'limit'), 50, p);
    }
    assert.equal(queryDefault('/files/{fileId}/text', 'maxBytes'), 65536);
    for (const name of ['InsuranceSearchRequest', 'SearchRequest']) assert.equal(doc.components.schemas[name].properties.limit.default, 50, name);
  });

  it('every documented operation was answered with a success and checked', () => {
    const missing: string[] = [];
    for (const [p, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const m of Object.keys(ops)) if (!succeeded.has(`${m.toUpperCase()} ${p}`)) missing.push(`${m.toUpperCase()} ${p}`);
    }
    assert.deepEqual(missing, []);
  });
});
