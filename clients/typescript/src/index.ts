/**
 * A thin typed client for the Insurance Filing Research Service: openapi-fetch over the types that
 * openapi-typescript generates from the served document (`schema.d.ts`), plus what every caller needs
 * and would otherwise rewrite: the API key, errors as exceptions with the service's `code` and
 * `requestId`, retries that honour `Retry-After`, and page iteration until `nextCursor` is null.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

export type { components, paths };
export type Schemas = components['schemas'];

/** The service's error answer (`{error, code, details?, requestId}`) as an exception. */
export class IfrsError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly requestId: string | null,
    readonly details: Schemas['Error']['details'] | undefined,
    readonly body: unknown,
  ) {
    super(`${status} ${code}: ${messageOf(body) ?? 'request failed'}`);
    this.name = 'IfrsError';
  }
}

function messageOf(body: unknown): string | undefined {
  return body && typeof body === 'object' && typeof (body as { error?: unknown }).error === 'string' ? (body as { error: string }).error : undefined;
}

export interface IfrsClientOptions {
  /** The API root, e.g. `http://127.0.0.1:8080/api/v2`. */
  baseUrl: string;
  apiKey: string;
  /** How many times a 429 or 503 is retried (default 3). */
  retries?: number;
  /** Upper bound for one wait, in milliseconds, whatever `Retry-After` says (default 30,000). */
  maxRetryDelayMs?: number;
  fetch?: typeof globalThis.fetch;
}

export type IfrsClient = Client<paths>;

/** A write that may not run twice: retried on 503 only when it carries an `Idempotency-Key`. */
function retrySafe(req: Request, status: number): boolean {
  if (status === 429) return true; // refused before any work was done
  if (req.method === 'GET' || req.method === 'HEAD' || req.method === 'PUT') return true;
  if (req.method === 'POST' && new URL(req.url).pathname.endsWith('/search')) return true;
  return req.headers.has('Idempotency-Key');
}

/** `Retry-After` in seconds or as an HTTP date; a missing or broken one waits a growing default. */
export function retryDelayMs(header: string | null, attempt: number, maxMs: number): number {
  let ms = NaN;
  if (header) ms = /^\d+$/.test(header.trim()) ? Number(header) * 1000 : Date.parse(header) - Date.now();
  if (!Number.isFinite(ms) || ms < 0) ms = 250 * 2 ** attempt;
  return Math.min(ms, maxMs);
}

function retryingFetch(inner: typeof globalThis.fetch, retries: number, maxMs: number): typeof globalThis.fetch {
  return async (input, init) => {
    const original = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const res = await inner(original.clone());
      if ((res.status !== 429 && res.status !== 503) || attempt >= retries || !retrySafe(original, res.status)) return res;
      await res.body?.cancel();
      await new Promise((r) => setTimeout(r, retryDelayMs(res.headers.get('Retry-After'), attempt, maxMs)));
    }
  };
}

export function createIfrsClient(opts: IfrsClientOptions): IfrsClient {
  const client = createClient<paths>({
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${opts.apiKey}` },
    fetch: retryingFetch(opts.fetch ?? globalThis.fetch, opts.retries ?? 3, opts.maxRetryDelayMs ?? 30_000),
  });
  client.use({
    async onResponse({ response }) {
      if (response.ok || (response.status >= 300 && response.status < 400)) return undefined;
      const body: unknown = await response.clone().json().catch(() => undefined);
      const code = body && typeof body === 'object' && typeof (body as { code?: unknown }).code === 'string' ? (body as { code: string }).code : 'http_error';
      const requestId = (body as { requestId?: string } | undefined)?.requestId ?? response.headers.get('X-Request-Id');
      throw new IfrsError(response.status, code, requestId, (body as Schemas['Error'] | undefined)?.details, body);
    },
  });
  return client;
}

/** A call's `data`, which is present whenever the call did not throw. */
export async function ok<T>(call: Promise<{ data?: T; response: Response }>): Promise<T> {
  const { data, response } = await call;
  if (data === undefined) throw new IfrsError(response.status, 'empty_response', response.headers.get('X-Request-Id'), undefined, undefined);
  return data;
}

/** Every page of a list or search, following `nextCursor` until it is null. */
export async function* pages<P extends { nextCursor?: string | null }>(fetchPage: (cursor: string | undefined) => Promise<P>): AsyncGenerator<P> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield page;
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}

/** Every record of a paged list: `items(fetchPage, 'filings')`. */
export async function* items<P extends { nextCursor?: string | null }, K extends keyof P>(
  fetchPage: (cursor: string | undefined) => Promise<P>,
  key: K,
): AsyncGenerator<P[K] extends ReadonlyArray<infer T> ? T : never> {
  for await (const page of pages(fetchPage)) {
    for (const item of page[key] as unknown as Iterable<P[K] extends ReadonlyArray<infer T> ? T : never>) yield item;
  }
}
