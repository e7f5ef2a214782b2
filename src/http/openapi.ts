import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { z } from './zod';
import type { RouteSpec } from './route';
import { documentParameter } from './openapi-parameters';
import { IDEMPOTENCY_DESCRIPTION } from './idempotency';
import { LINKS } from './openapi-links';
// Real requests and answers recorded from the demo data set by `npm run openapi:examples`.
import EXAMPLES from './openapi-examples.json';

interface OperationExample {
  url?: string;
  request?: unknown;
  responses: Record<string, unknown>;
}
const examples = EXAMPLES as Record<string, OperationExample>;

/** A recorded query text as the parameter's type: an integer or boolean parameter's example is one. */
function exampleValue(schema: object | undefined, text: string): unknown {
  const s = schema as { type?: unknown; anyOf?: { type?: unknown }[] } | undefined;
  const types = [s?.type, ...(s?.anyOf ?? []).map((b) => b.type)].flat();
  if (types.includes('integer') && /^-?\d+$/.test(text)) return Number(text);
  if (types.includes('boolean') && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

/** The parameter values of a recorded call, by `in:name`: path ones matched against the template, the first of a repeated query one. */
export function recordedParameters(template: string, url: string): Record<string, string> {
  const [pathPart, queryPart = ''] = url.split('?');
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const pattern = new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '([^/]+)')}$`);
  const match = pattern.exec(pathPart);
  const out: Record<string, string> = {};
  names.forEach((n, i) => {
    if (match) out[`path:${n}`] = decodeURIComponent(match[i + 1]);
  });
  for (const [k, v] of new URLSearchParams(queryPart)) out[`query:${k}`] ??= v;
  return out;
}


export const ErrorSchema = z
  .object({
    error: z.string(),
    code: z.string().min(1),
    details: z
      .array(
        z.object({
          location: z.enum(['path', 'query', 'header', 'body']),
          path: z.array(z.string().max(64)).max(12),
          code: z.enum(['required', 'invalid_type', 'invalid_value', 'unknown_field']),
          message: z.string().min(1).max(200),
        }),
      )
      .min(1)
      .max(20)
      .optional(),
    requestId: z.string().min(1).max(128),
    dataset: z.literal('naic').optional(),
  })
  .openapi('Error');

const STANDARD_ERRORS: Record<number, string> = {
  400: 'Invalid request or invalid cursor (`invalid_request`, `invalid_cursor`).',
  401: 'Missing or invalid API key (`unauthenticated`).',
  403: 'Forbidden (`forbidden`, `dataset_not_enabled`, `download_restricted`).',
  404: 'Not found or not visible (`not_found`).',
  429:
    'Extension (the contract names no rate limits): too many requests for this API key (`rate_limited`), from its token bucket ' +
    '(a signed address without a key: from its client address), or, on search and extracted text, too many of its requests in flight at once. ' +
    'Retry after `Retry-After` seconds. `RateLimit` and `RateLimit-Policy` (draft-ietf-httpapi-ratelimit-headers-10) describe the limits.',
  500: 'Unexpected failure (`internal_error`).',
  503: 'A dependency is temporarily unavailable, or a database statement ran past the statement timeout (IFRS_STATEMENT_TIMEOUT_MS) (`temporarily_unavailable`, with `Retry-After`).',
};

/**
 * The app reads a body sent to any operation: over the limit a 413, a non-JSON one a 415. A GET takes
 * none, but one sent anyway is read and checked like any other (kept: the contract refuses unknown input,
 * and a bounded read answers a large body at once instead of draining it), so a GET documents them as
 * what a body sent with it gets.
 */
const BODY_ERRORS: Record<number, string> = {
  413: 'The request body is larger than this operation accepts (`request_too_large`).',
  415: 'The request body is not JSON (`unsupported_media_type`).',
};
const GET_BODY_ERRORS: Record<number, string> = {
  413: 'Only when a body is sent: this operation takes none, and one over 1 MiB is refused (`request_too_large`).',
  415: 'Only when a body is sent: this operation takes none, and one that is not JSON is refused (`unsupported_media_type`; an empty JSON object is accepted).',
};

/**
 * Standard statuses an operation never answers, by operationId: no handler path or shared step of theirs
 * throws them (no id to miss, no permission to check; upload completion reports per-file failures in its 200).
 */
const NEVER_ANSWERS: Record<string, number[]> = {
  getCurrentUser: [403, 404],
  getManagedFilingFieldOptions: [403, 404],
  listInsuranceManagedFilings: [404],
  listManagedFilings: [404],
  completeFileUploads: [403, 404],
};

type HeaderDescriptions = Record<string, { description: string }>;

/** The answers of the request limits (src/http/request-limits.ts). */
const RATE_LIMIT_HEADERS: HeaderDescriptions = {
  'Retry-After': { description: 'Seconds to wait before retrying the same request.' },
  RateLimit: { description: 'Structured-field list of the current limits: `"per-key";r=<remaining requests>;t=<seconds until the bucket is full>`, and on search and text `"<group>";r=<free slots>`.' },
  'RateLimit-Policy': { description: 'Structured-field list of the policies: `"per-key";q=<bucket size>;w=<seconds to refill it>`, and on search and text `"<group>";q=<cap>;qu="concurrent-requests"`.' },
};

/** Every answer carries X-Request-Id (DESIGN: errors repeat it as requestId); a 503 also Retry-After. */
function responseHeaders(status: string, own: HeaderDescriptions = {}): Record<string, unknown> {
  const all: HeaderDescriptions = { 'X-Request-Id': { description: 'Server correlation ID of this attempt (the error body repeats it as requestId).' }, ...own };
  if (status === '503') all['Retry-After'] = { description: 'Seconds to wait before retrying the same request.' };
  if (status === '429') Object.assign(all, RATE_LIMIT_HEADERS);
  return Object.fromEntries(Object.entries(all).map(([h, d]) => [h, { description: d.description, required: true, schema: { type: 'string' } }]));
}

/** The tags operations are grouped by, in the order a reader meets them. */
const TAGS = [
  { name: 'identity', description: 'Who the API key belongs to.' },
  { name: 'catalog', description: 'Read-only catalog of SERFF and Florida IRFS filings: browse by metadata, look up by tracking number.' },
  { name: 'search', description: 'Full-text search over filing documents, with passages and page numbers.' },
  { name: 'files', description: "A filing's stored files: inventory, extracted text in byte-bounded chunks, signed downloads and uploads." },
  { name: 'directories', description: 'Carriers, carrier groups, MGAs and products.' },
  { name: 'working filings', description: 'Filings being prepared: items, attachments, comments, their scopes and their event history.' },
];

/** Sections of the decisions text (a `Heading:` line, then `- ` notes) that belong to one tag's description. */
const SECTION_TAGS: Record<string, string> = { 'Working filings, uploads and artifacts': 'working filings' };

/**
 * The decisions text split for a reader: the general conventions stay in info.description, a feature's
 * notes go to its tag (shown above its operations), so the overview is not a wall of notes.
 */
export function splitDecisions(decisions: string): { general: string; byTag: Record<string, string> } {
  const byTag: Record<string, string> = {};
  const general: string[] = [];
  for (const section of decisions.split(/\n(?=[^\n-][^\n]*:\n- )/)) {
    const heading = /^([^\n]*):\n/.exec(section)?.[1];
    const tag = heading === undefined ? undefined : SECTION_TAGS[heading];
    if (tag) byTag[tag] = section.slice(heading!.length + 2);
    else general.push(section);
  }
  return { general: general.join('\n'), byTag };
}

/** One operationId per path form: a route with several forms names each (same order as its paths). */
export function operationIdOf(r: RouteSpec, pathIndex: number): string {
  if (typeof r.operationId === 'string') {
    if (r.paths.length !== 1) throw new Error(`${r.paths.join(', ')}: one operationId per path form`);
    return r.operationId;
  }
  if (r.operationId.length !== r.paths.length) throw new Error(`${r.paths.join(', ')}: one operationId per path form`);
  return r.operationId[pathIndex];
}
const IDEMPOTENCY_ERRORS: Record<number, string> = {
  409: 'A request with the same Idempotency-Key is still in progress (`idempotency_key_in_use`, with `Retry-After`).',
  422: 'The Idempotency-Key was used before with another request (`idempotency_key_reused`).',
};

const IdempotencyHeader = z.object({
  'Idempotency-Key': z.string().min(1).max(255).optional().openapi({ description: IDEMPOTENCY_DESCRIPTION, example: '4f9c1e5a-6d1b-4c7e-9a53-0b8c2f7d1e42' }),
});

/** The OpenAPI 3.1 document, generated from the same route definitions that validate requests. */
export function buildOpenApi(routes: RouteSpec[], decisions: string): object {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', description: 'An API key: `Authorization: Bearer ifrs_...`' });
  for (const r of routes) {
    for (const [i, path] of r.paths.entries()) {
      const operationId = operationIdOf(r, i);
      const example = examples[operationId];
      const responses: Record<string, unknown> = {};
      for (const [status, spec] of Object.entries(r.responses)) {
        const answer = example?.responses[status];
        const links = LINKS[operationId]?.[Number(status)];
        responses[status] = {
          description: spec.description,
          headers: responseHeaders(status, spec.headers),
          // Every error answer has the one error shape, also where a route only names the status.
          ...(spec.binary
            ? { content: { '*/*': { schema: { type: 'string', format: 'binary' } } } }
            : spec.schema || Number(status) >= 400
              ? { content: { 'application/json': { schema: spec.schema ?? ErrorSchema, ...(answer === undefined ? {} : { example: answer }) } } }
              : {}),
          ...(links ? { links } : {}),
        };
      }
      // A raw-bytes route (signed upload) takes any content type, but not more bytes than declared.
      const bodyErrors = r.rawBody ? { 413: BODY_ERRORS[413] } : r.method === 'get' ? GET_BODY_ERRORS : BODY_ERRORS;
      for (const [status, description] of Object.entries({ ...STANDARD_ERRORS, ...bodyErrors })) {
        // A signed address works without the API key: it is refused with 403, never 401.
        if (status === '401' && r.auth === 'none') continue;
        if (NEVER_ANSWERS[operationId]?.includes(Number(status))) continue;
        if (!responses[status])
          responses[status] = { description, headers: responseHeaders(status), content: { 'application/json': { schema: ErrorSchema } }, ...(status === '429' ? { 'x-extension': true } : {}) };
      }
      if (r.idempotencyKey === 'honored') {
        for (const [status, description] of Object.entries(IDEMPOTENCY_ERRORS)) {
          if (!responses[status]) responses[status] = { description, headers: responseHeaders(status), content: { 'application/json': { schema: ErrorSchema } } };
        }
      }
      const request: Record<string, unknown> = {};
      if (r.idempotencyKey === 'honored') request.headers = IdempotencyHeader;
      if (r.query) request.query = r.query;
      if (r.params) request.params = r.params;
      // The app reads an absent body as {}: the body is required only where {} is refused.
      if (r.body) {
        const sent = example?.request === undefined ? {} : { example: example.request };
        request.body = { content: { 'application/json': { schema: r.body, ...sent } }, required: !r.body.safeParse({}).success };
      }
      registry.registerPath({
        method: r.method,
        path,
        operationId,
        summary: r.summary,
        description: r.idempotencyKey === 'refused' ? `${r.description ?? ''}\n\nIdempotency-Key is refused here (400 \`idempotency_key_not_supported\`): the contract makes this operation non-idempotent.`.trim() : r.description,
        tags: r.tags,
        security: r.auth === 'none' ? [] : [{ bearer: [] }],
        request: request as never,
        responses: responses as never,
        ...(r.extension ? { 'x-extension': true } : {}),
      });
    }
  }
  const { general, byTag } = splitDecisions(decisions);
  const generator = new OpenApiGeneratorV31(registry.definitions);
  const doc = generator.generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Insurance Filing Research Service',
      version: '2.0.0',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Insurance Filing Research Service operators' },
      description: `Regulatory filing catalog, document search, stored files, directories and working filings. Each tag's description adds the notes of its area.\n\n${general}`,
    },
    servers: [{ url: '/api/v2' }],
    tags: TAGS.filter((t) => routes.some((r) => r.tags?.includes(t.name))).map((t) => (byTag[t.name] ? { ...t, description: `${t.description}\n\n${byTag[t.name]}` } : t)),
  });
  for (const [template, item] of Object.entries(doc.paths ?? {})) {
    for (const op of Object.values(item as Record<string, { operationId?: string; parameters?: Parameters<typeof documentParameter>[0][] }>)) {
      const url = examples[op.operationId ?? '']?.url;
      const recorded = url ? recordedParameters(template, url) : {};
      for (const param of op.parameters ?? []) {
        // A route's own example wins; then the value this operation was recorded with; then the shared table's.
        const value = recorded[`${param.in}:${param.name}`];
        if (value !== undefined && param.example === undefined && param.schema?.example === undefined) param.example = exampleValue(param.schema, value);
        documentParameter(param);
      }
    }
  }
  return doc;
}
