import type { Request, Response } from 'express';
import type { WriteTrace } from '../ports/write-trace';
import type { z } from 'zod';
import type { RecordedEvent } from '../domain/events';
import type { Principal } from '../domain/principal';
import type { ConcurrencyGroup } from './request-limits';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** The body already serialized as JSON (a read model that renders its records in SQL); sent as is. */
  json?: string;
  /** Raw bytes or a stream response handled by the route itself. */
  handled?: boolean;
}

export interface RouteContext<Q, B, P> {
  query: Q;
  body: B;
  params: P;
  principal: Principal;
  requestId: string;
  req: Request;
  res: Response;
  /**
   * Aborts when the client goes away before its answer is complete: give it to the work that can be
   * cancelled (a search's or a text read's statements). Made on first use; most routes never need it.
   */
  readonly signal: AbortSignal;
  /** The write trace of a request holding an Idempotency-Key: give it to the command service (its appends are marked). */
  trace?: WriteTrace;
}

export interface ResponseSpec {
  description: string;
  schema?: z.ZodType;
  /** Raw bytes of any media type (a stored original), documented as any media type with a binary schema. */
  binary?: boolean;
  headers?: Record<string, { description: string }>;
}

/**
 * One endpoint: the Express route, its validation and its OpenAPI operation come from this one
 * definition, so the served document cannot drift from what the server enforces.
 */
export interface RouteSpec<Q = unknown, B = unknown, P = unknown> {
  method: Method;
  /** Paths relative to /api/v2 in OpenAPI form (`/filings/{filingId}`); several = several forms, one handler. */
  paths: string[];
  /** Stable OpenAPI operationId; one per path form when there are several (same order as `paths`). */
  operationId: string | string[];
  summary: string;
  tags?: string[];
  description?: string;
  /** Marked `x-extension` in the OpenAPI document: the contract names no way to do this. */
  extension?: boolean;
  /** 'none' for signed addresses that work without the API key. */
  auth?: 'required' | 'none';
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  params?: z.ZodType<P>;
  /** JSON body limit in bytes (default 1 MiB). 'raw' routes take bytes (signed upload). */
  bodyLimit?: number;
  rawBody?: boolean;
  /**
   * `honored`: a write that keeps its first answer per Idempotency-Key (src/http/idempotency.ts);
   * `refused`: a write the contract makes non-idempotent, where the header is a 400. Unset: the header is ignored.
   */
  idempotencyKey?: 'honored' | 'refused';
  /** An expensive route: its requests count against the key's concurrency cap of this group. */
  concurrency?: ConcurrencyGroup;
  responses: Record<number, ResponseSpec>;
  handler(ctx: RouteContext<Q, B, P>): Promise<Reply>;
  /**
   * For an `honored` write that appends: its answer rebuilt from the current state, given the events an earlier
   * run of the same keyed request appended before its host died (src/http/idempotency.ts, keyedEvents).
   * Without it such a retry fails (500) rather than write a second time.
   */
  recover?(ctx: RouteContext<Q, B, P> & { written: RecordedEvent[] }): Promise<Reply>;
}

export function defineRoute<Q, B, P>(spec: RouteSpec<Q, B, P>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** A feature's endpoints; the container resolves every module and the app mounts them. */
export interface RouteModule {
  routes(): RouteSpec[];
}
