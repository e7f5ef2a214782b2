import type { z } from 'zod';
import { ConfigError } from '../config';

/**
 * A commander argument parser that checks a flag's value with a zod schema as commander reads it, so a bad
 * value ends the command (exit 2, one line naming the flag) before anything starts.
 */
export function flagParser<T>(flag: string, expected: string, schema: z.ZodType<T, string>): (value: string) => T {
  return (value) => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new ConfigError(flag, `invalid ${flag} ${JSON.stringify(value)}: expected ${expected}`);
    return parsed.data;
  };
}
