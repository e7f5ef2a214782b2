import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { collectRoutes } from '../../../src/server';
import { client, makeCaller, startTestRuntime, type TestRuntime } from '../../support/runtime';

// Ajv 8 with the 2020-12 dialect of OpenAPI 3.1, from the document validator's own dependencies.
const fromValidator = createRequire(require.resolve('@seriousme/openapi-schema-validator'));
const Ajv2020 = fromValidator('ajv/dist/2020').default;
const addFormats = fromValidator('ajv-formats').default;

describe('OpenAPI document', () => {
  let t: TestRuntime;
  let doc: any;
  before(async () => {
    t = await startTestRuntime();
    doc = (await client(t.baseUrl).get('/openapi.json')).body;
  });
  after(async () => t.close());

  it('is a valid OpenAPI 3.1 document, version 2.0.0', async () => {
    // An ES module: loaded with import() from this CommonJS test.
    const { Validator } = await import('@seriousme/openapi-schema-validator');
    const result = await new Validator().validate(doc);
    assert.equal(result.valid, true, JSON.stringify(result.errors)?.slice(0, 2000));
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '2.0.0');
  });

  it('describes every mounted route in every path form, with the error shape and bearer security', () => {
    for (const route of collectRoutes(t.rt)) {
      for (const p of route.paths) {
        const op = doc.paths[p]?.[route.method];
        assert.ok(op, `${route.method.toUpperCase()} ${p} is in the document`);
        assert.ok(op.responses['400'] && op.responses['500'], `${p} documents the error responses`);
        // A signed address (auth none) is refused with 403, never 401.
        assert.equal(Boolean(op.responses['401']), route.auth !== 'none', `${p} documents 401 exactly when it needs the API key`);
        if (route.auth !== 'none') assert.deepEqual(op.security, [{ bearer: [] }]);
        if (route.extension) assert.equal(op['x-extension'], true, `${p} is marked x-extension`);
      }
    }
    assert.ok(doc.components.schemas.Error.properties.requestId);
  });

  it('rule: every operation has a stable, unique operationId and a declared tag; info names license and contact', () => {
    const ids: string[] = [];
    const declared = new Set((doc.tags as { name: string; description: string }[]).map((t) => t.name));
    for (const [p, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        assert.match(op.operationId ?? '', /^[a-z][A-Za-z]+$/, `${method} ${p} has an operationId`);
        assert.ok((op.description ?? '').length > 20, `${method} ${p} has a description`);
        ids.push(op.operationId);
        for (const tag of op.tags ?? []) assert.ok(declared.has(tag), `${method} ${p}: tag ${tag} is declared`);
      }
    }
    assert.equal(new Set(ids).size, ids.length, 'operationIds are unique');
    assert.equal(doc.paths['/insurance/filings'].get.operationId, 'listInsuranceFilings');
    assert.ok((doc.tags as { description: string }[]).every((t) => t.description.length > 10));
    assert.ok(doc.info.license.name && doc.info.contact.name);
  });

  it('rule: fields the service accepts as null are nullable in the document (projectId, predecessorFilingId, parentCommentId)', () => {
    const s = doc.components.schemas;
    for (const [schema, field] of [['CreateManagedFiling', 'projectId'], ['CreateManagedFiling', 'predecessorFilingId'], ['PatchManagedFiling', 'projectId'], ['PatchManagedFiling', 'predecessorFilingId'], ['PostFilingComment', 'parentCommentId']]) {
      assert.deepEqual(s[schema].properties[field].type, ['string', 'null'], `${schema}.${field}`);
    }
  });

  it('rule: every parameter example is valid against the parameter\'s schema; path parameters use the values an operation was recorded with', () => {
    let checked = 0;
    for (const [label, op] of operations()) {
      for (const param of op.parameters ?? []) {
        const example = param.example ?? param.schema?.example;
        if (example === undefined) continue;
        assert.ok(validator(param.schema)(example), `${label} ${param.in} ${param.name}: ${JSON.stringify(example)}`);
        checked++;
      }
    }
    assert.ok(checked >= 150, `${checked} parameter examples`);
    const filingId = doc.paths['/managed-filings/{filingId}'].get.parameters.find((p: any) => p.name === 'filingId').example;
    assert.equal(filingId, doc.paths['/managed-filings/{filingId}'].get.responses['200'].content['application/json'].example.id, 'the recorded filing');
  });

  it('rule: every parameter of every operation has a description and an example', () => {
    for (const [p, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        for (const param of op.parameters ?? []) {
          assert.ok(param.description || param.schema?.description, `${method} ${p} ${param.in} ${param.name} has a description`);
          assert.ok(param.example !== undefined || param.schema?.example !== undefined, `${method} ${p} ${param.in} ${param.name} has an example`);
        }
      }
    }
  });

  /** Validates `value` against a schema of the document (its $refs resolved against the document's components). */
  function validator(schema: unknown): (value: unknown) => boolean {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema({ $id: 'openapi', components: doc.components });
    return ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi#/components/')));
  }

  it('rule: rules the service enforces are stated in the schemas (GET sort keys once each; search sort relevance desc only, each field once; upload names without slashes; toiCode and subToiCode pairs)', async () => {
    const sort = validator(doc.paths['/insurance/filings'].get.parameters.find((p: any) => p.name === 'sort').schema);
    assert.ok(sort(['-submissionDate', 'state']) && sort('state'));
    for (const bad of [['state', 'state'], ['state', '-state'], ['-companyName', 'companyName', 'state']]) assert.equal(sort(bad), false, bad.join(','));
    // The server refuses what the document refuses.
    const caller = await makeCaller(t.rt);
    const refused = await client(t.baseUrl, caller.apiKey).get('/insurance/filings?sort=state&sort=-state');
    assert.equal(refused.status, 400, refused.text);

    const searchSort = validator(doc.components.schemas.SearchRequest.properties.sort);
    assert.ok(searchSort([{ field: 'relevance', direction: 'desc' }, { field: 'state', direction: 'asc' }]));
    assert.equal(searchSort([{ field: 'relevance', direction: 'asc' }]), false, 'relevance asc');
    assert.equal(searchSort([{ field: 'state', direction: 'asc' }, { field: 'state', direction: 'desc' }]), false, 'state twice');
    assert.equal(searchSort([{ field: 'state', direction: 'asc' }, { field: 'state', direction: 'asc' }]), false, 'the same key twice');

    const begin = validator(doc.components.schemas.BeginUpload);
    const upload = { scope: 'mc:00000000-0000-4000-8000-000000000001', name: 'rate-exhibit.pdf', mimeType: 'application/pdf', size: 10 };
    assert.ok(begin(upload));
    assert.equal(begin({ ...upload, name: 'exhibits/rate.pdf' }), false);
    assert.equal(begin({ ...upload, name: 'exhibits\\rate.pdf' }), false);

    // A subToiCode comes with its own toiCode (create); given together in a PATCH, they match.
    const create = validator(doc.components.schemas.CreateManagedFiling);
    const filing = { scope: upload.scope, companyId: crypto.randomUUID(), jurisdictionId: crypto.randomUUID(), primaryProductId: crypto.randomUUID(), filingType: 'rate' };
    assert.ok(create(filing) && create({ ...filing, toiCode: '04.0' }) && create({ ...filing, toiCode: '04.0', subToiCode: '04.0003' }) && create({ ...filing, subToiCode: null }));
    assert.equal(create({ ...filing, toiCode: '11.0', subToiCode: '04.0003' }), false, 'a sub-TOI of another TOI');
    assert.equal(create({ ...filing, subToiCode: '04.0003' }), false, 'a sub-TOI without its TOI');
    const patch = validator(doc.components.schemas.PatchManagedFiling);
    assert.ok(patch({ subToiCode: '04.0003' }) && patch({ toiCode: '04.0', subToiCode: '04.0003' }) && patch({ toiCode: null, subToiCode: null }));
    assert.equal(patch({ toiCode: '11.0', subToiCode: '04.0003' }), false);
    assert.equal(patch({ toiCode: null, subToiCode: '04.0003' }), false);
  });

  it('rule: the signed download\'s 200 and 206 declare binary content of any media type, with their headers', () => {
    const op = doc.paths['/signed/files/{fileId}/{version}/{grant}'].get;
    for (const status of ['200', '206']) {
      assert.deepEqual(op.responses[status].content, { '*/*': { schema: { type: 'string', format: 'binary' } } }, status);
      assert.ok(op.responses[status].headers['Content-Disposition'], status);
    }
    assert.ok(op.responses['206'].headers['Content-Range']);
  });

  /** Every operation of the document as [label, operation]. */
  function operations(): [string, any][] {
    return Object.entries<Record<string, any>>(doc.paths).flatMap(([p, item]) => Object.entries<any>(item).map(([m, op]) => [`${m.toUpperCase()} ${p}`, op] as [string, any]));
  }

  it('rule: every operation has an example of its JSON request body and of its 200/201 JSON answer, each valid against its schema', () => {
    let checked = 0;
    for (const [label, op] of operations()) {
      const sent = op.requestBody?.content?.['application/json'];
      if (sent) {
        assert.notEqual(sent.example, undefined, `${label}: request example`);
        const valid = validator(sent.schema);
        assert.ok(valid(sent.example), `${label}: the request example matches its schema`);
        checked++;
      }
      for (const status of ['200', '201']) {
        const answer = op.responses[status]?.content?.['application/json'];
        if (!answer) continue;
        assert.notEqual(answer.example, undefined, `${label}: ${status} example`);
        assert.ok(validator(answer.schema)(answer.example), `${label}: the ${status} example matches its schema`);
        checked++;
      }
    }
    assert.ok(checked >= 60, `${checked} examples checked`);
    // Recorded from a local run, published with a neutral origin.
    assert.doesNotMatch(JSON.stringify(doc.paths), /127\.0\.0\.1|localhost/);
  });

  it('rule: links name existing operations and parameters, and each $response.body pointer resolves in the source answer\'s example', () => {
    const byId = new Map(operations().map(([, op]) => [op.operationId, op]));
    const at = (value: any, pointer: string) => pointer.split('/').slice(1).reduce((v, k) => (v == null ? undefined : v[k]), value);
    let links = 0;
    for (const [label, op] of operations()) {
      for (const [status, response] of Object.entries<any>(op.responses)) {
        for (const [name, link] of Object.entries<any>(response.links ?? {})) {
          links++;
          const target = byId.get(link.operationId);
          assert.ok(target, `${label} ${status} link ${name}: operation ${link.operationId} exists`);
          const example = response.content?.['application/json']?.example;
          for (const [param, expression] of Object.entries<string>(link.parameters ?? {})) {
            assert.ok(target.parameters?.some((p: any) => p.name === param), `${label} ${status} link ${name}: ${link.operationId} has parameter ${param}`);
            if (expression.startsWith('$response.body#')) {
              assert.notEqual(at(example, expression.slice('$response.body#'.length)), undefined, `${label} ${status} link ${name}: ${expression} resolves in the example`);
            } else {
              const m = /^\$request\.path\.(\w+)$/.exec(expression);
              assert.ok(m && op.parameters.some((p: any) => p.in === 'path' && p.name === m[1]), `${label} link ${name}: ${expression}`);
            }
          }
        }
      }
    }
    assert.ok(links >= 40, `${links} links`);
    assert.equal(doc.paths['/managed-filings'].post.responses['201'].links.getManagedFiling.parameters.filingId, '$response.body#/id');
  });

  it('rule: per-operation errors as they occur: operations with nothing to miss or forbid document no 403/404; a GET documents 413/415 as what a body sent with it gets', () => {
    const op = (p: string, m = 'get') => doc.paths[p][m];
    for (const p of ['/users/me', '/insurance/managed-filings/field-options']) {
      assert.equal(op(p).responses['403'], undefined, `${p} 403`);
      assert.equal(op(p).responses['404'], undefined, `${p} 404`);
    }
    assert.equal(op('/managed-filings').responses['404'], undefined);
    assert.ok(op('/managed-filings').responses['403'], 'a read-only key is refused');
    assert.equal(op('/files/uploads/complete', 'post').responses['404'], undefined);
    assert.ok(op('/managed-filings/{filingId}').responses['404'] && op('/insurance/carriers').responses['403']);
    assert.match(op('/users/me').responses['415'].description, /Only when a body is sent/);
    assert.doesNotMatch(op('/managed-filings', 'post').responses['415'].description, /Only when a body is sent/);
  });

  it('rule: info.description is an overview (general conventions); a feature\'s decision notes are in its tag\'s description', () => {
    assert.ok(doc.info.description.length < 2500, `${doc.info.description.length} characters`);
    assert.doesNotMatch(doc.info.description, /Working filings, uploads and artifacts/);
    const tag = (doc.tags as { name: string; description: string }[]).find((t) => t.name === 'working filings')!;
    assert.match(tag.description, /POST \/managed-filings \(also \/insurance\/managed-filings\) answers 201/);
  });

  it('rule: no pattern in the document uses the `.` wildcard outside a class (its line breaks differ between regex dialects, so a client could validate what the server refuses)', () => {
    const patterns: string[] = [];
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object') {
        for (const [k, x] of Object.entries(v)) {
          if (k === 'pattern' && typeof x === 'string') patterns.push(x);
          else walk(x);
        }
      }
    };
    walk(doc);
    assert.ok(patterns.length > 5, `${patterns.length} patterns`);
    const wildcard = (p: string) => {
      let inClass = false;
      for (let i = 0; i < p.length; i++) {
        if (p[i] === '\\') i++;
        else if (inClass) inClass = p[i] !== ']';
        else if (p[i] === '[') inClass = true;
        else if (p[i] === '.') return true;
      }
      return false;
    };
    assert.deepEqual(patterns.filter(wildcard), []);
  });
});
