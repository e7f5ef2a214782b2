import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import http from 'node:http';
import fc from 'fast-check';
import { carrier, carrierGroup, catalogFiling, file, importRecords, mga, product, serffFiling } from '../../support/catalog-records';
import { client, makeCaller, makeScope, startTestRuntime, type TestCaller, type TestRuntime } from '../../support/runtime';
import { filingBody, seedListings, upload } from '../../support/working-filings';

/*
 * Property-based abuse suite (issue 19): every operation of the served OpenAPI document gets hostile path
 * parameters, query strings and JSON bodies, generated from the document's own schemas (near-valid values
 * with hostile leaves: wrong types, strings at and over their bounds, unicode, NUL, empty, deep nesting,
 * arrays where scalars go, numbers out of range, unknown and prototype-named fields). Every answer must be
 * a coded JSON answer and never a 5xx. Bounded: ABUSE_RUNS inputs per operation (default 30) from a fixed
 * seed (ABUSE_SEED; operation i runs with seed + i), printed, so a failure reproduces.
 */
const SEED = Number(process.env.ABUSE_SEED ?? 19_2026);
const RUNS = Number(process.env.ABUSE_RUNS ?? 30);

/*
 * Lone UTF-16 surrogates (issue 19, finding 3) are generated too: the input-hygiene step answers them with a
 * coded 400. Off, the generators keep strings well-formed (for chasing another finding without that noise).
 */
const LONE_SURROGATES = true;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const wellFormedUtf16 = (s: string) => !LONE_SURROGATE.test(s);
const wellFormed = (s: string) => LONE_SURROGATES || wellFormedUtf16(s);

type Schema = Record<string, any>;
type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, Schema> } };

const FIXED_STRINGS = [
  '', ' ', '0', '-1', '1e309', 'NaN', 'null', 'true', '[]', '{}', '%', '%00', '%zz', '../../etc/passwd', "' or 1=1 --", '\\', '"', '\u0000', 'a\u0000b',
  '\u202e\u2066', '\ufeff', '\u00a0', '💥', '👩‍👩‍👧‍👦', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇', 'mc:', 'mc:00000000-0000-4000-8000-000000000000',
  '00000000-0000-4000-8000-000000000000', 'TX', 'tx', '04.0', '2024-02-30', '9999-12-31', '0000-00-00', '*', '%_%', '$where', '<script>',
  ...(LONE_SURROGATES ? ['\ud800', 'x\udfffy', '\udc00\ud800'] : []),
];
const HOSTILE_KEYS = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', '', 'unknownField', '\u0000', 'a'.repeat(100)), fc.string({ unit: 'grapheme', maxLength: 12 }));

function hostileString(maxLength: number): fc.Arbitrary<string> {
  const kinds: fc.WeightedArbitrary<string>[] = [
    { arbitrary: fc.constantFrom(...FIXED_STRINGS), weight: 2 },
    { arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }), weight: 2 },
    { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).filter(wellFormed), weight: 1 },
    // Long runs of one character (two UTF-16 units for the emoji), up to the bound given.
    { arbitrary: fc.tuple(fc.constantFrom('a', 'é', '😀', ' ', '"', '\u0000', '%'), fc.integer({ min: 100, max: maxLength })).map(([c, n]) => c.repeat(Math.max(1, Math.floor(n / c.length)))), weight: 1 },
  ];
  if (LONE_SURROGATES) {
    const half = fc.integer({ min: 0xd800, max: 0xdfff }).map((u) => String.fromCharCode(u));
    kinds.push({ arbitrary: fc.tuple(fc.string({ unit: 'grapheme', maxLength: 10 }), half, fc.string({ unit: 'grapheme', maxLength: 10 })).map((p) => p.join('')).filter((x) => !wellFormedUtf16(x)), weight: 3 });
  }
  return fc.oneof(...kinds);
}

const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 0.5, 2147483647, 2147483648, -2147483649, Number.MAX_SAFE_INTEGER, 2 ** 63, 1e308, 5e-324),
);

/** Any JSON value, hostile at every level; bodies may be up to `maxString` characters per string. */
function hostileJson(maxString: number): fc.Arbitrary<unknown> {
  const { value } = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.constant(null),
      fc.boolean(),
      hostileNumber,
      hostileString(maxString),
      fc.array(tie('value'), { maxLength: 5 }),
      fc.dictionary(HOSTILE_KEYS, tie('value'), { maxKeys: 5 }),
    ),
  }));
  // Deep nesting, far past anything a schema allows.
  const deep = fc.integer({ min: 20, max: 400 }).map((n) => JSON.parse('['.repeat(n) + ']'.repeat(n)) as unknown);
  return fc.oneof({ arbitrary: value, weight: 6 }, { arbitrary: deep, weight: 1 });
}

/** Ids the seeded data holds, by parameter or field name: a near-valid input reaches past the look-ups. */
type KnownIds = Record<string, string[]>;

/**
 * How hostile one input is. Mostly-valid inputs reach the handlers and the database (where the 500s hide);
 * a single hostile leaf in an otherwise valid input tests each check on its own; wild inputs test the rest.
 */
interface Mode {
  name: 'clean' | 'wild';
  /** Weight of a hostile value against 10 for a value near the schema, at every leaf. */
  hostile: number;
  /** Most optional query parameters sent at once. */
  queryParams: number;
}
const CLEAN: Mode = { name: 'clean', hostile: 0, queryParams: 2 };
const WILD: Mode = { name: 'wild', hostile: 10, queryParams: 8 };

/** One request's parts before they are rendered: path parameter texts, query pairs, the body. */
interface Parts {
  pathValues: string[];
  queryPairs: [string, string][];
  /** undefined: no body; a string: sent as is (malformed JSON); anything else as JSON. */
  body: unknown;
}

/** Every position in a JSON value, as key paths (the value itself is the empty path). */
function positions(v: unknown, at: (string | number)[] = []): (string | number)[][] {
  const inner = Array.isArray(v) ? v.flatMap((x, i) => positions(x, [...at, i])) : v && typeof v === 'object' ? Object.entries(v).flatMap(([k, x]) => positions(x, [...at, k])) : [];
  return [at, ...inner];
}

function replaced(v: unknown, at: (string | number)[], bad: unknown): unknown {
  if (!at.length) return bad;
  const copy: any = Array.isArray(v) ? [...v] : { ...(v as object) };
  copy[at[0]] = replaced(copy[at[0]], at.slice(1), bad);
  return copy;
}

/** A clean input with exactly one hostile part: a path parameter, a query value or one position of the body. */
function withOneHostilePart(parts: Parts, pick: number, bad: unknown): Parts {
  const spots = parts.body === undefined || typeof parts.body === 'string' ? [] : positions(parts.body);
  const count = parts.pathValues.length + parts.queryPairs.length + spots.length;
  if (!count) return { ...parts, body: bad };
  let k = pick % count;
  if (k < parts.pathValues.length) return { ...parts, pathValues: parts.pathValues.map((v, i) => (i === k ? text(bad) : v)) };
  k -= parts.pathValues.length;
  if (k < parts.queryPairs.length) return { ...parts, queryPairs: parts.queryPairs.map(([name, v], i) => [name, i === k ? text(bad) : v]) };
  k -= parts.queryPairs.length;
  return { ...parts, body: replaced(parts.body, spots[k], bad) };
}

class Generators {
  constructor(private readonly doc: Doc, private readonly known: KnownIds) {}

  private resolve(schema: Schema | undefined): Schema {
    if (schema?.$ref) return this.doc.components.schemas[String(schema.$ref).split('/').pop()!] ?? {};
    return schema ?? {};
  }

  /** A value near the schema (bounds, enums, patterns, formats, known ids), its leaves hostile as the mode says. */
  value(schema: Schema | undefined, name: string, mode: Mode, depth = 0, maxString = 2000): fc.Arbitrary<unknown> {
    const s = this.resolve(schema);
    const near = depth > 4 ? null : this.near(s, name, mode, depth, maxString);
    if (!near) return mode.hostile ? hostileJson(maxString) : fc.constant({});
    return mode.hostile ? fc.oneof({ arbitrary: near, weight: 10 }, { arbitrary: hostileJson(maxString), weight: mode.hostile }) : near;
  }

  private near(s: Schema, name: string, mode: Mode, depth: number, maxString: number): fc.Arbitrary<unknown> | null {
    // A clean input uses the seeded values where there are some (fields that must agree, such as toiCode and subToiCode, included).
    if (!mode.hostile && this.known[name]?.length) return fc.constantFrom(...this.known[name]);
    const branches: Schema[] = [...(s.anyOf ?? []), ...(s.oneOf ?? []), ...(s.allOf ?? [])];
    if (branches.length) return fc.oneof(...branches.map((b) => this.value(b, name, mode, depth + 1, maxString)));
    if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]));
    if (s.const !== undefined) return fc.constant(s.const);
    const types: string[] = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];
    const arbs = types.map((t) => this.ofType(t, s, name, mode, depth, maxString)).filter((a): a is fc.Arbitrary<unknown> => a !== null);
    return arbs.length ? fc.oneof(...arbs) : null;
  }

  private ofType(type: string, s: Schema, name: string, mode: Mode, depth: number, maxString: number): fc.Arbitrary<unknown> | null {
    switch (type) {
      case 'null':
        return fc.constant(null);
      case 'boolean':
        return fc.boolean();
      case 'integer':
      case 'number': {
        const min = typeof s.minimum === 'number' ? s.minimum : -1000;
        const max = typeof s.maximum === 'number' ? s.maximum : 1000;
        const inRange = fc.integer({ min: Math.max(Number.MIN_SAFE_INTEGER, min), max: Math.min(Number.MAX_SAFE_INTEGER, max) });
        // Clean inputs stay within the bounds; the others try one past them.
        const bounds = mode.hostile ? fc.constantFrom(min - 1, min, max, max + 1) : fc.constantFrom(min, max);
        const fraction = fc.double({ min: min - 1, max: max + 1, noNaN: true });
        return fc.oneof({ arbitrary: inRange, weight: 4 }, { arbitrary: bounds, weight: 1 }, { arbitrary: fraction, weight: type === 'number' ? 2 : mode.hostile ? 1 : 0 });
      }
      case 'string':
        return this.string(s, name, mode, maxString);
      case 'array': {
        const item = this.value(s.items, name, mode, depth + 1, maxString);
        const minItems = typeof s.minItems === 'number' ? s.minItems : 0;
        const maxItems = typeof s.maxItems === 'number' ? s.maxItems : 5;
        const within = fc.array(item, { minLength: minItems, maxLength: Math.max(minItems, Math.min(maxItems, 4)) });
        // Now and then one past the bound (the bounds here are at most a few hundred).
        const over = fc.array(item, { minLength: maxItems + 1, maxLength: maxItems + 1 });
        return maxItems <= 200 && mode.hostile ? fc.oneof({ arbitrary: within, weight: 8 }, { arbitrary: over, weight: 1 }) : within;
      }
      case 'object': {
        const props: Record<string, Schema> = s.properties ?? {};
        // A random cursor is always refused (they are signed): only hostile inputs send one.
        const keys = Object.keys(props).filter((k) => mode.hostile || k !== 'cursor');
        if (!keys.length) return mode.hostile ? fc.dictionary(HOSTILE_KEYS, hostileJson(maxString), { maxKeys: 3 }) : fc.constant({});
        const fields = Object.fromEntries(keys.map((k) => [k, this.value(props[k], k, mode, depth + 1, maxString)]));
        const required = (s.required as string[] | undefined)?.filter((k) => keys.includes(k)) ?? [];
        const record = mode.hostile ? fc.oneof({ arbitrary: fc.record(fields, { requiredKeys: required }), weight: 4 }, { arbitrary: fc.record(fields, { requiredKeys: [] }), weight: 1 }) : fc.record(fields, { requiredKeys: required });
        if (!mode.hostile) return record;
        // Sometimes a field the schema does not name, prototype names included.
        const extra = fc.oneof({ arbitrary: fc.constant(null), weight: 10 }, { arbitrary: fc.tuple(HOSTILE_KEYS, hostileJson(maxString)), weight: mode.hostile });
        return fc.tuple(record, extra).map(([o, e]) => (e ? { ...o, [e[0]]: e[1] } : o));
      }
      default:
        return null;
    }
  }

  private string(s: Schema, name: string, mode: Mode, maxString: number): fc.Arbitrary<unknown> {
    const ids = this.known[name];
    if (ids?.length && !mode.hostile) return fc.constantFrom(...ids);
    const options: fc.WeightedArbitrary<unknown>[] = [];
    if (ids?.length) options.push({ arbitrary: fc.constantFrom(...ids), weight: 6 });
    if (s.format === 'uuid') options.push({ arbitrary: fc.uuid(), weight: 3 });
    else if (s.format === 'date') {
      const date = fc.date({ noInvalidDate: true, min: new Date('0001-01-01T00:00:00Z'), max: new Date('9999-12-31T00:00:00Z') }).map((d) => d.toISOString().slice(0, 10));
      options.push({ arbitrary: date, weight: 3 });
      if (mode.hostile) options.push({ arbitrary: fc.constantFrom('2024-02-30', '2023-02-29', '2024-13-01', '2024-1-1'), weight: 1 });
    } else if (s.format === 'date-time') options.push({ arbitrary: fc.date({ noInvalidDate: true }).map((d) => d.toISOString()), weight: 3 });
    else if (typeof s.pattern === 'string') options.push({ arbitrary: fc.stringMatching(new RegExp(s.pattern)).filter((x) => x.length <= (s.maxLength ?? Infinity)), weight: 3 });
    else options.push({ arbitrary: fc.string({ unit: 'grapheme', minLength: Math.max(1, s.minLength ?? 0), maxLength: Math.max(Math.max(1, s.minLength ?? 0), Math.min(s.maxLength ?? 40, 40)) }), weight: 3 });
    // Exactly at and one past the length bound (20,000-character descriptions and contexts included).
    if (typeof s.maxLength === 'number' && s.maxLength <= maxString) {
      options.push({ arbitrary: (mode.hostile ? fc.constantFrom(s.maxLength, s.maxLength + 1) : fc.constant(s.maxLength)).map((n) => 'é'.repeat(n)), weight: 1 });
    }
    if (mode.hostile) options.push({ arbitrary: hostileString(Math.min(maxString, 2000)), weight: mode.hostile });
    return fc.oneof(...options);
  }

  /** One path parameter's text: a known id, else near the schema, a uuid or hostile text. */
  pathParam(p: Schema, mode: Mode): fc.Arbitrary<string> {
    const ids = this.known[p.name] ?? [];
    if (ids.length && !mode.hostile) return fc.constantFrom(...ids);
    const near = this.value(p.schema, p.name, mode, 1, 300).map(text);
    return fc.oneof(...(ids.length ? [{ arbitrary: fc.constantFrom(...ids), weight: 10 }] : []), { arbitrary: fc.uuid(), weight: 2 }, { arbitrary: near, weight: 2 }, { arbitrary: hostileString(300), weight: mode.hostile });
  }

  /** A query string: some documented parameters, scalar or repeated, and in hostile modes maybe an unknown one. */
  query(params: Schema[], mode: Mode): fc.Arbitrary<[string, string][]> {
    // Required parameters always (a clean input), the others a few at a time.
    const required = params.filter((p) => p.required);
    const usable = params.filter((p) => !p.required && (mode.hostile || p.name !== 'cursor'));
    const pairs = fc.subarray(usable, { maxLength: Math.min(mode.queryParams, usable.length) }).chain((optional) => {
      const chosen = [...required, ...optional];
      return fc.tuple(...chosen.map((p) => this.value(p.schema, p.name, mode, 1, 1000).map((v): [string, string][] => (Array.isArray(v) ? v.slice(0, 5).map((x) => [p.name, text(x)]) : [[p.name, text(v)]]))));
    });
    const unknown = mode.hostile
      ? fc.oneof({ arbitrary: fc.constant(null), weight: 10 }, { arbitrary: fc.tuple(fc.oneof(HOSTILE_KEYS, fc.constantFrom(...params.map((p) => `${p.name}[]`), 'x')), hostileString(200)), weight: mode.hostile })
      : fc.constant(null);
    return fc.tuple(pairs, unknown).map(([lists, extra]) => [...lists.flat(), ...(extra ? [extra] : [])]);
  }
}

/**
 * Percent-encoding that also takes lone surrogates (which encodeURIComponent refuses): as the three bytes
 * WTF-8 gives them, which are not valid UTF-8, so the server sees exactly the broken text a client sent.
 */
function encode(s: string): string {
  if (!LONE_SURROGATE.test(s)) return encodeURIComponent(s);
  return s.replace(/[\uD800-\uDBFF][\uDC00-\uDFFF]|[^]/g, (c) => {
    if (c.length === 2 || c < '\uD800' || c > '\uDFFF') return encodeURIComponent(c);
    const u = c.charCodeAt(0);
    return [0xed, 0x80 | ((u >> 6) & 0x3f), 0x80 | (u & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
  });
}

/** How a generated value travels in a URL. */
function text(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v === undefined) return '';
  return typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v);
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

/** Raw HTTP: the path goes out exactly as generated (fetch would normalise dot segments). */
function send(baseUrl: string, method: string, path: string, apiKey: string | null, body: string | undefined): Promise<Answer> {
  const url = new URL(baseUrl);
  const headers: Record<string, string> = {};
  if (apiKey) headers.Authorization = `Bearer ${apiKey}`;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    headers['Content-Length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, method, path: url.pathname + path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** What is wrong with an answer, or null: a coded JSON answer, never a 5xx. */
function problem(a: Answer): string | null {
  if (a.status >= 500) return `status ${a.status}`;
  const requestId = a.headers['x-request-id'];
  if (typeof requestId !== 'string' || !requestId) return 'no X-Request-Id';
  const json = /^application\/json/.test(a.headers['content-type'] ?? '');
  let body: any;
  if (a.text) {
    if (!json) return `a body that is not JSON (${a.headers['content-type']})`;
    try {
      body = JSON.parse(a.text);
    } catch {
      return 'a body that does not parse as JSON';
    }
  }
  if (a.status >= 400) {
    if (typeof body?.code !== 'string' || !body.code) return 'an error without a code';
    if (typeof body.error !== 'string') return 'an error without a message';
    if (body.requestId !== requestId) return 'an error whose requestId is not its X-Request-Id';
    return null;
  }
  if (a.status >= 300) return a.headers.location ? null : 'a redirect without Location';
  if (a.status !== 204 && body === undefined) return 'a success without a JSON body';
  return null;
}

describe('abuse suite: property-based hostile input on every operation of the OpenAPI document', function () {
  this.timeout(600_000);
  let t: TestRuntime;
  let doc: Doc;
  let owner: TestCaller;
  let readOnly: TestCaller;
  let noSerff: TestCaller;
  const known: KnownIds = {};

  before(async function () {
    this.timeout(120_000);
    t = await startTestRuntime();
    doc = (await client(t.baseUrl).get('/openapi.json')).body;
    owner = await makeCaller(t.rt);
    readOnly = await makeCaller(t.rt, { tenantId: owner.tenantId, readOnly: true });
    noSerff = await makeCaller(t.rt, { tenantId: owner.tenantId, permissions: [] });
    const scope = await makeScope(t.rt, owner.tenantId, [
      { userId: owner.userId, role: 'manager' },
      { userId: readOnly.userId, role: 'viewer' },
      { userId: noSerff.userId, role: 'editor' },
    ]);
    const l = await seedListings(t.rt, scope);
    const ids = { fl: crypto.randomUUID(), serff: crypto.randomUUID(), textFile: crypto.randomUUID(), serffFile: crypto.randomUUID() };
    const imported = await importRecords(t.rt, [
      carrierGroup(),
      carrier({ aliases: ['Acme'] }),
      mga({ carriers: [{ carrierId: 'carrier_12345', role: 'fronting', sourceNotes: 'test' }] }),
      catalogFiling({ id: ids.fl, files: [file({ fileId: ids.textFile, content: { base64: Buffer.from('page one\fpage two').toString('base64') }, mimeType: 'text/plain' })] }),
      serffFiling({ id: ids.serff, files: [file({ fileId: ids.serffFile, content: { base64: Buffer.from('serff text').toString('base64') }, mimeType: 'text/plain' })] }),
      product({
        id: 'product_abuse',
        groupId: 'carrier_group_100',
        mgaId: 'mga_cyber-one',
        availability: [{ state: 'FL', writingCompanyIds: ['carrier_12345'], toiCodes: ['04.0'], subtoiCodes: ['04.0003'], note: null }],
        claims: [{ text: 'Files in Florida', citations: [{ kind: 'filing', filingId: ids.fl }, { kind: 'filing', filingId: ids.serff }] }],
        filings: [{ state: 'FL', filingId: ids.fl }],
      }),
    ]);
    assert.equal(imported.failed, 0, JSON.stringify(imported.errors));
    await t.rt.engine.catchUp();
    const api = client(t.baseUrl, owner.apiKey);
    const filing = await api.post('/managed-filings', filingBody(scope, l, { description: 'abuse target' }));
    assert.equal(filing.status, 201, filing.text);
    const { artifact } = await upload(t.baseUrl, owner.apiKey, scope);
    const item = await api.post(`/managed-filings/${filing.body.id}/items`, { artifactId: artifact.id });
    assert.equal(item.status, 201, item.text);
    const comment = await api.post(`/managed-filings/${filing.body.id}/comments`, { body: 'a thread' });
    assert.equal(comment.status, 201, comment.text);
    Object.assign(known, {
      filingId: [ids.fl, ids.serff, filing.body.id],
      fileId: [ids.textFile, ids.serffFile],
      itemId: [item.body.id],
      commentId: [comment.body.id],
      parentCommentId: [comment.body.id],
      artifactId: [artifact.id],
      productId: ['product_abuse'],
      carrierId: ['carrier_12345'],
      groupId: ['carrier_group_100'],
      mgaId: ['mga_cyber-one'],
      state: ['FL', 'TX'],
      scope: [scope],
      companyId: [l.companyId],
      jurisdictionId: [l.jurisdictionId],
      primaryProductId: [l.productId],
      toiCode: ['04.0'],
      subToiCode: ['04.0003'],
    });
  });
  after(async () => {
    agent.destroy();
    await t?.close();
  });

  it('rule: no input gets a 5xx: every answer on every operation is a coded JSON 2xx/3xx/4xx with X-Request-Id (2xx/4xx bodies JSON, 4xx with code and requestId)', async () => {
    const gen = new Generators(doc, known);
    const operations = Object.entries(doc.paths).flatMap(([p, item]) => Object.entries(item).map(([method, op]) => ({ method, path: p, op })));
    // Every operation the app serves is in the document (51 when this suite was written).
    assert.ok(operations.length >= 51, `${operations.length} operations`);
    console.log(`    abuse suite: seed ${SEED}, ${RUNS} runs per operation, ${operations.length} operations (ABUSE_SEED / ABUSE_RUNS to change; operation i uses seed + i)`);
    const failures: string[] = [];
    /** Answers by operation and status class, to show how deep the inputs reached. */
    const reached = new Map<string, Record<string, number>>();
    const keys = fc.constantFrom(owner.apiKey, owner.apiKey, owner.apiKey, readOnly.apiKey, noSerff.apiKey);
    for (const [i, { method, path, op }] of operations.entries()) {
      const params: Schema[] = op.parameters ?? [];
      const pathParams = params.filter((p) => p.in === 'path');
      const bodySchema: Schema | undefined = op.requestBody?.content?.['application/json']?.schema;
      const malformed = fc.constantFrom('{', '[1,', 'nul', '{"a":1}{"b":2}', '"x"', '1', '');
      const queryParams = params.filter((p) => p.in === 'query');
      const parts = (mode: Mode): fc.Arbitrary<Parts> =>
        fc.record({
          pathValues: fc.tuple(...pathParams.map((p) => gen.pathParam(p, mode))),
          queryPairs: gen.query(queryParams, mode),
          body: bodySchema
            ? mode.hostile
              ? fc.oneof({ arbitrary: gen.value(bodySchema, 'body', mode, 0, 20_001), weight: 4 }, { arbitrary: malformed, weight: 1 })
              : gen.value(bodySchema, 'body', mode, 0, 20_001)
            : mode.hostile
              ? fc.option(hostileJson(500))
              : fc.constant(undefined),
        });
      const badPart = fc.oneof({ arbitrary: hostileString(2000), weight: 3 }, { arbitrary: hostileJson(2000), weight: 2 });
      const anyKey = op.security?.length === 0 ? fc.constant(null) : keys;
      const ownerKey = op.security?.length === 0 ? fc.constant(null) : fc.constant(owner.apiKey);
      const input = fc.oneof(
        fc.record({ mode: fc.constant('clean'), parts: parts(CLEAN), apiKey: ownerKey }),
        fc.record({ mode: fc.constant('one hostile part'), parts: fc.tuple(parts(CLEAN), fc.nat(), badPart).map(([p, pick, bad]) => withOneHostilePart(p, pick, bad)), apiKey: ownerKey }),
        fc.record({ mode: fc.constant('wild'), parts: parts(WILD), apiKey: anyKey }),
      );
      const seed = SEED + i;
      try {
        await fc.assert(
          fc.asyncProperty(input, async ({ mode, parts: { pathValues, queryPairs, body }, apiKey }) => {
            let k = 0;
            const p = path.replace(/\{[^}]+\}/g, () => encode(pathValues[k++]));
            const query = queryPairs.length ? `?${queryPairs.map(([name, v]) => `${encode(name)}=${encode(v)}`).join('&')}` : '';
            // A generated string body is sent as is (malformed JSON); anything else as JSON.
            const payload = body === null || body === undefined ? undefined : typeof body === 'string' && bodySchema ? body : JSON.stringify(body);
            const answer = await send(t.baseUrl, method.toUpperCase(), p + query, apiKey, payload);
            const counts = reached.get(`${method.toUpperCase()} ${path}`) ?? {};
            const statusClass = answer.status === 400 || answer.status === 404 ? String(answer.status) : `${String(answer.status)[0]}xx`;
            counts[statusClass] = (counts[statusClass] ?? 0) + 1;
            reached.set(`${method.toUpperCase()} ${path}`, counts);
            const wrong = problem(answer);
            if (wrong) throw new Error(`${wrong} (${mode} input): ${method.toUpperCase()} ${(p + query).slice(0, 300)} body ${String(payload).slice(0, 300)} -> ${answer.status} ${answer.text.slice(0, 300)}`);
          }),
          { seed, numRuns: RUNS, endOnFailure: true },
        );
      } catch (e) {
        // fast-check's report (seed, path, counterexample) and the answer that broke the rule.
        const report = (e as Error).message.split('\n').filter((line) => line && !line.startsWith('Hint:')).join('\n').slice(0, 1500);
        const cause = (e as Error & { cause?: Error }).cause?.message ?? '';
        failures.push(`${method.toUpperCase()} ${path} (seed ${seed}): ${report}${cause && !report.includes(cause) ? `\n${cause.slice(0, 800)}` : ''}`);
      }
    }
    if (process.env.ABUSE_VERBOSE) for (const [op, counts] of reached) console.log(`      ${op}: ${JSON.stringify(counts)}`);
    assert.equal(failures.length, 0, `${failures.length} operation(s) gave a bad answer (seed ${SEED}):\n${failures.join('\n\n')}`);
  });
});
