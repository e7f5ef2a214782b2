import { z } from 'zod';
import { ImportRecordError } from './record-importer';

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
