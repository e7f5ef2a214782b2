import { InvalidArgumentError } from 'commander';

/**
 * A commander argParser for a whole number within [min, max]: `--port abc` or `--filings -3` is a usage
 * error (one line, exit 2) instead of silently becoming a default.
 */
export function wholeNumber(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  const expected = max === Number.MAX_SAFE_INTEGER ? `expected a whole number of at least ${min}.` : `expected a whole number from ${min} to ${max}.`;
  return (value: string) => {
    const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) throw new InvalidArgumentError(expected);
    return n;
  };
}
