import { z } from 'zod';
import { ImportRecordError } from '../../src/domain/errors';
import { isStorableText } from '../../src/domain/storable-text';

/** Parses an import record with a zod schema; the first problems become the line's one-line message. */
export function parseRecord<T>(schema: z.ZodType<T>, record: Record<string, unknown>): T {
  const r = schema.safeParse(record);
  if (r.success) return r.data;
  const parts = r.error.issues.slice(0, 3).map((i) => {
    const where = i.path.length ? i.path.join('.') : 'record';
    if (i.code === 'unrecognized_keys') return `${where}: unknown field(s) ${i.keys.join(', ')}`;
    if (i.code === 'invalid_type' && (i as { input?: unknown }).input === undefined) return `${where}: required`;
    return `${where}: ${i.message}`;
  });
  throw new ImportRecordError(parts.join('; '));
}

export const nullableString = (max = 20000) => z.string().max(max).nullable().default(null);

/**
 * Refuses a record whose strings Postgres cannot store. JSON allows `\u0000` and a lone `\ud800`, but
 * the event's jsonb does not: such a line failed the whole append batch, and the import with it, instead
 * of being reported as a bad line (OPERATIONS.md). Checks `value` (a parsed record or part of it) down to
 * its strings, keys included; `path` names where it sits in the record (one array, pushed and popped:
 * this runs on every imported filing).
 */
export function assertStorableText(value: unknown, path: (string | number)[] = []): void {
  if (typeof value === 'string') {
    if (!isStorableText(value)) throw new ImportRecordError(`${path.length ? path.join('.') : 'record'}: text may not contain NUL (U+0000) or an unpaired surrogate`);
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      path.push(i);
      assertStorableText(value[i], path);
      path.pop();
    }
    return;
  }
  for (const k in value) {
    path.push(k);
    assertStorableText(k, path);
    assertStorableText((value as Record<string, unknown>)[k], path);
    path.pop();
  }
}
