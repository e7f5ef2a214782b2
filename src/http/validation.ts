import { z } from './zod';
import type { DetailCode, DetailLocation, ErrorDetail } from '../domain/errors';
import { invalidRequest } from '../domain/errors';

/** The spec's bounds on `details`: at most 20 items, 12 path segments of 64 characters, 200-character messages. */
function boundDetail(d: ErrorDetail): ErrorDetail {
  return {
    location: d.location,
    path: d.path.slice(0, 12).map((s) => String(s).slice(0, 64)),
    code: d.code,
    message: (d.message || 'invalid').slice(0, 200),
  };
}

export function boundDetails(details: ErrorDetail[]): ErrorDetail[] {
  return details.slice(0, 20).map(boundDetail);
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let v = input;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function codeOf(issue: z.core.$ZodIssue, input: unknown): DetailCode {
  switch (issue.code) {
    case 'invalid_type':
      // zod 4 does not report the input; a missing value at the path is "required".
      return valueAt(input, issue.path) === undefined ? 'required' : 'invalid_type';
    case 'unrecognized_keys':
      return 'unknown_field';
    case 'invalid_value':
      // An absent enum field fails as invalid_value; it is "required".
      return valueAt(input, issue.path) === undefined ? 'required' : 'invalid_value';
    default:
      return 'invalid_value';
  }
}

export function issuesToDetails(location: DetailLocation, issues: z.core.$ZodIssue[], input?: unknown): ErrorDetail[] {
  const out: ErrorDetail[] = [];
  for (const issue of issues) {
    const path = issue.path.map((p) => String(p));
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) out.push({ location, path: [...path, key], code: 'unknown_field', message: `Unknown ${location === 'query' ? 'parameter' : 'field'} "${key}".` });
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors?.length) {
      // Report the branch that got furthest rather than "invalid input".
      const best = [...issue.errors].sort((a, b) => b.length - a.length)[0];
      if (best.length) {
        out.push(...issuesToDetails(location, best.map((i) => ({ ...i, path: [...issue.path, ...i.path] })), input));
        continue;
      }
    }
    const code = codeOf(issue, input);
    const message = code === 'required' ? `${path.length ? `"${path[path.length - 1]}"` : 'A value'} is required.` : issue.message;
    out.push({ location, path, code, message });
  }
  return out;
}

export function parseOrThrow<T>(schema: z.ZodType<T>, location: DetailLocation, input: unknown): T {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const details = issuesToDetails(location, r.error.issues, input);
  throw invalidRequest(details[0] ? `Invalid ${location}: ${details[0].message}` : `Invalid ${location}.`, boundDetails(details));
}

// ---- query-string helpers: Express gives string | string[] per parameter ----

const once = (name = 'parameter') =>
  z.any().superRefine((v, ctx) => {
    if (Array.isArray(v)) ctx.addIssue({ code: 'custom', message: `The ${name} may be given only once.` });
  });

/**
 * The OpenAPI schema of a query parameter's value. The generator cannot look inside a preprocess, so
 * without this the document showed `{}` (no type, no bounds) for every scalar parameter.
 */
function paramSchema(inner: z.ZodType): Record<string, unknown> {
  const { $schema: _, ...schema } = z.toJSONSchema(inner, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
  return schema;
}

/** A scalar query parameter: repeating it is an error, never "take the first". */
export function qScalar<T extends z.ZodType>(inner: T, openapi: Record<string, unknown> = paramSchema(inner)) {
  return z.preprocess((v) => v, once().pipe(inner as z.ZodType)).openapi(openapi) as unknown as T;
}

/** Integer query parameter with bounds; `dflt` is what the handler uses when it is absent (documented only). */
export function qInt(min: number, max: number, dflt?: number) {
  return qScalar(
    z
      .string()
      .regex(/^-?\d+$/, 'Must be an integer.')
      .transform((s) => Number(s))
      .pipe(z.number().int().min(min, `Must be at least ${min}.`).max(max, `Must be at most ${max}.`)),
    { type: 'integer', minimum: min, maximum: max, ...(dflt === undefined ? {} : { default: dflt }) },
  );
}

export function qBool() {
  return qScalar(z.enum(['true', 'false']).transform((s) => s === 'true'), { type: 'boolean' });
}

/** A repeatable query parameter: one or more values, combined with OR by the caller. */
/** `arrayRules`: more JSON Schema for the repeated form (uniqueness, say), where the handler enforces it. */
export function qList<T extends z.ZodType>(item: T, max = 100, arrayRules: Record<string, unknown> = {}) {
  return z
    .union([item, z.array(item)])
    .transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[])
    .pipe(z.array(z.any()).max(max, `At most ${max} values.`))
    // The bound is checked after the transform, where the generator does not look: stated here.
    .openapi({ anyOf: [paramSchema(item), { type: 'array', items: paramSchema(item), maxItems: max, ...arrayRules }] }) as unknown as z.ZodType<z.infer<T>[]>;
}

export const cursorParam = () => qScalar(z.string().min(1).max(128));
