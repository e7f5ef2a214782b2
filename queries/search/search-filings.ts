import type { Knex } from 'knex';
import { forbidden, invalidCursor, invalidRequest } from '../../src/domain/errors';
import type { CursorService } from '../../src/http/cursors';
import { defineRoute, type RouteContext, type RouteModule } from '../../src/http/route';
import { z } from '../../src/http/zod';
import { CatalogFiling } from '../catalog/catalog-record';
import { canViewSerff } from '../../src/domain/principal';
import type { SearchIndex } from '../../src/ports/search-index';
import { SEARCH_BOUNDS, searchBoundError } from '../../src/ports/search-bounds';
import { resolveDirectoryFilters } from './search-directory-filters';
import { FILTER_FIELDS, filterProblems, filterSchemaVariants } from './search-filters';
import { buildSearchQuery, DEFAULT_DATA_SCOPE, DEFAULT_LIMIT, DEFAULT_SORT, INCLUDE_PASSAGES_DEFAULT, intentRepeatsQuery, type SearchBody } from './search-query';

export const SEARCH_BODY_LIMIT = 64 * 1024;
/** Files listed per filing in `matches`, and passages per file. */
export const MATCHES_PER_FILING = 20;
export const PASSAGES_PER_FILE = 2;

const Filter = z
  .strictObject({ field: z.string().max(64), operator: z.string().max(32), value: z.unknown() })
  .superRefine((f, ctx) => {
    // A wrong type keeps its detail code (invalid_type); every other problem is an invalid_value.
    for (const p of filterProblems(f)) {
      if (p.code === 'invalid_type') ctx.addIssue({ code: 'invalid_type', expected: 'string', input: f.value, path: p.path, message: p.message });
      else ctx.addIssue({ code: 'custom', path: p.path, message: p.message });
    }
  })
  .openapi('SearchFilter', {
    description: 'One filter: the accepted field × operator × value shapes (docs/search.md has the same table). Anything else is 400 invalid_request with a detail at filters[i].',
    oneOf: filterSchemaVariants() as never,
  });

const ORDERED_FIELDS = ['submissionDate', 'dispositionDate', 'stateStatusChangedDate', 'companyName', 'state'] as const;
const SortKey = z
  .strictObject({
    field: z.enum(['relevance', ...ORDERED_FIELDS]),
    direction: z.enum(['asc', 'desc']),
  })
  .openapi('SearchSortKey', {
    description: '`relevance` sorts `desc` only; the other fields either way.',
    oneOf: [
      { type: 'object', properties: { field: { const: 'relevance' }, direction: { const: 'desc' } }, required: ['field', 'direction'], additionalProperties: false },
      { type: 'object', properties: { field: { enum: [...ORDERED_FIELDS] }, direction: { enum: ['asc', 'desc'] } }, required: ['field', 'direction'], additionalProperties: false },
    ] as never,
  });
/** The superRefine's "each field once", in JSON Schema: no repeated key, and never both directions of one field. */
const ONCE_EACH = {
  uniqueItems: true,
  not: { anyOf: ORDERED_FIELDS.map((f) => ({ allOf: (['asc', 'desc'] as const).map((d) => ({ contains: { properties: { field: { const: f }, direction: { const: d } }, required: ['field', 'direction'] } })) })) },
};

const bodyFields = {
  query: z
    .string()
    .min(1)
    .max(4000)
    .openapi({ description: `Keyword text or a tracking number. Cost bound: at most ${SEARCH_BOUNDS.phrases} quoted phrases and ${SEARCH_BOUNDS.words} words together with intent (400 invalid_request beyond).` }),
  filters: z.array(Filter).max(50).optional(),
  sort: z
    .array(SortKey)
    .min(1)
    .max(3)
    .superRefine((keys, ctx) => {
      keys.forEach((k, i) => {
        if (k.field === 'relevance' && k.direction !== 'desc') ctx.addIssue({ code: 'custom', path: [i, 'direction'], message: 'relevance sorts desc only.' });
        if (keys.findIndex((x) => x.field === k.field) !== i) ctx.addIssue({ code: 'custom', path: [i, 'field'], message: `${k.field} is given twice.` });
      });
    })
    .openapi({ ...ONCE_EACH, description: 'Up to three keys, each field once.' })
    .optional(),
  includePassages: z.boolean().optional(),
  dataScope: z.enum(['recent', 'historical', 'all']).optional(),
  limit: z.number().int().min(1).max(200).optional().openapi({ default: 50 }),
  cursor: z.string().min(1).max(128).optional(),
};
const intent = z.string().min(10).max(500).openapi({ description: 'The goal of the search, in words: it reorders results and must add at least one word to `query` (compared without case, punctuation or spacing), otherwise 400.' });
const InsuranceBody = z.strictObject({ ...bodyFields, intent }).openapi('InsuranceSearchRequest');
const FilingsBody = z.strictObject({ ...bodyFields, intent: intent.optional() }).openapi('SearchRequest');
type Body = SearchBody & { cursor?: string };

const Passage = z.object({ text: z.string(), pageStart: z.number().int().nullable(), pageEnd: z.number().int().nullable() });
const Match = z.object({ fileId: z.string().uuid(), versionId: z.string().nullable(), name: z.string(), passages: z.array(Passage).optional() }).openapi('SearchMatch');
const SearchResponse = z
  // A result is the catalog filing record plus its matches (spec: "the same fields plus matches").
  .object({ filings: z.array(CatalogFiling.extend({ matches: z.array(Match) })), nextCursor: z.string().nullable(), exhaustive: z.boolean() })
  .openapi('SearchResponse');

const DESCRIPTION = `Document search over catalog filings (docs/search.md has every rule). Body limit 64 KiB (413 request_too_large).
The best filings by relevance form a candidate window (100 with includePassages, else 1,200); \`sort\` (default submissionDate desc) orders within it.
A complete tracking number matches the native reference exactly (SERFF case-insensitively), a partial one by prefix.
Quoted phrases are honoured only with a narrowing filter (state, companyName, carrierIds/naicCompanyCodes containsAny, trackingNumber, a date).
Cost bound (x-extension, both search engines): at most ${SEARCH_BOUNDS.phrases} quoted phrases and ${SEARCH_BOUNDS.words} words in \`query\` and \`intent\` together (a tracking number has none); beyond either, 400 invalid_request whose detail names the bound at body.query (or body.intent).
A statement that runs past the statement timeout (IFRS_STATEMENT_TIMEOUT_MS) answers 503 temporarily_unavailable with Retry-After.
\`carrierIds\` and \`groupId\` select what the list's \`carrier\` and \`group\` select: a carrier through its current NAIC company codes (a merged carrier through its survivor's), a group through its NAIC group code or its unmerged carriers' current company codes (not the filing's own groupId); an id that matches no catalog identifier is 404.
\`intent\` reorders (its words add a rank component at 0.3 weight) and never selects; one that adds no word to the query is 400.
Filters (field: operators): ${Object.entries(FILTER_FIELDS).map(([f, s]) => `${f}: ${Object.keys(s.operators).join('/')}`).join('; ')}.`;

/** POST /insurance/filings/search and /filings/search: one handler, two request schemas (intent required on the first). */
export class SearchFilingsRoutes implements RouteModule {
  constructor(
    private readonly index: SearchIndex,
    private readonly cursors: CursorService,
    private readonly knex: Knex,
  ) {}

  private async handle({ body, principal, signal }: RouteContext<unknown, Body, unknown>) {
    if (body.intent !== undefined && intentRepeatsQuery(body.query, body.intent)) {
      throw invalidRequest('The intent only repeats the query; describe the goal of the search.', [
        { location: 'body', path: ['intent'], code: 'invalid_value', message: 'The intent adds no word to the query (compared without case, punctuation or spacing).' },
      ]);
    }
    const serff = canViewSerff(principal);
    if (!serff && body.filters?.some((f) => f.field === 'source' && f.value === 'serff')) throw forbidden('Searching serff filings needs the serff:view permission.');
    const { cursor, ...semantic } = body;
    // Bound to the semantic body: a field left out and the same field sent with its default are one request.
    const request = {
      ...semantic,
      filters: semantic.filters ?? [],
      sort: semantic.sort ?? DEFAULT_SORT,
      includePassages: semantic.includePassages ?? INCLUDE_PASSAGES_DEFAULT,
      dataScope: semantic.dataScope ?? DEFAULT_DATA_SCOPE,
      limit: semantic.limit ?? DEFAULT_LIMIT,
    };
    const binding = { kind: 'search.post', principal, request };
    let offset = 0;
    let issuedAt: number | undefined;
    if (cursor) {
      const c = await this.cursors.decode<{ o: number }>(binding, cursor);
      if (typeof c.state?.o !== 'number' || c.state.o < 0) throw invalidCursor();
      offset = c.state.o;
      issuedAt = c.issuedAt;
    }
    const filters = await resolveDirectoryFilters(this.knex, request.filters);
    const q = { ...buildSearchQuery({ ...semantic, filters }, { canViewSerff: serff }, { offset }), signal };
    const beyondBound = searchBoundError(q);
    if (beyondBound) throw beyondBound;
    const page = await this.index.search(q);
    const includePassages = q.window === 100;
    const hits = page.hits.map((h) => ({ ...h, matches: h.matches.slice(0, MATCHES_PER_FILING) }));
    const passages = includePassages
      ? await this.index.passages(q, hits.flatMap((h) => h.matches.map((m) => ({ filingId: h.filing.id, fileId: m.fileId }))), PASSAGES_PER_FILE)
      : null;
    const end = offset + hits.length;
    const nextCursor = hits.length && end < page.candidates ? await this.cursors.encode(binding, { o: end }, issuedAt) : null;
    return {
      headers: { 'Cache-Control': 'no-store' },
      body: {
        filings: hits.map((h) => ({
          ...h.filing,
          matches: h.matches.map((m) => {
            const p = passages?.get(m.fileId);
            return { fileId: m.fileId, versionId: m.versionId, name: m.name, ...(p?.length ? { passages: p } : {}) };
          }),
        })),
        nextCursor,
        exhaustive: page.exhaustive,
      },
    };
  }

  routes() {
    const common = {
      method: 'post' as const,
      summary: 'Search filing documents',
      description: DESCRIPTION,
      tags: ['search'],
      bodyLimit: SEARCH_BODY_LIMIT,
      concurrency: 'search' as const,
      responses: {
        200: { description: 'A page of matching filings', schema: SearchResponse },
        403: { description: 'An explicit source=serff filter without serff:view' },
        404: { description: 'not_found: a carrierIds or groupId filter value that matches no catalog identifier' },
        413: { description: 'request_too_large: body over 64 KiB' },
      },
      handler: (ctx: RouteContext<unknown, Body, unknown>) => this.handle(ctx),
    };
    return [
      defineRoute({ ...common, paths: ['/insurance/filings/search'], operationId: 'searchInsuranceFilings', body: InsuranceBody as unknown as z.ZodType<Body> }),
      defineRoute({ ...common, paths: ['/filings/search'], operationId: 'searchFilings', body: FilingsBody as unknown as z.ZodType<Body> }),
    ];
  }
}
