import querystring from 'node:querystring';
import { AppError } from '../domain/errors';

const MESSAGE = 'The query string is not valid percent-encoded UTF-8.';

/** `a%ZZ=1&b=%E0%A4` → the key of the first pair that does not decode (for the error's path). */
function firstUndecodableKey(str: string): string {
  for (const pair of str.split('&')) {
    const eq = pair.indexOf('=');
    const rawKey = (eq < 0 ? pair : pair.slice(0, eq)).replaceAll('+', ' ');
    const rawValue = (eq < 0 ? '' : pair.slice(eq + 1)).replaceAll('+', ' ');
    let key: string;
    try {
      key = decodeURIComponent(rawKey);
    } catch {
      return rawKey;
    }
    try {
      decodeURIComponent(rawValue);
    } catch {
      return key;
    }
  }
  return '';
}

/**
 * Express's query parser: Node's querystring (what 'simple' was), with two differences. A percent-escape that
 * is not UTF-8 is a coded 400 at the query, as it is at the path, where querystring would silently turn it into
 * U+FFFD and answer for another value. And no cap on the number of pairs: querystring drops every pair after the
 * 1,000th without a word, while the contract lets a list take 100 values per filter (the header limit bounds the
 * string, see http-limits.ts).
 */
export function parseQueryString(str: string): Record<string, string | string[]> {
  let undecodable = false;
  const parsed = querystring.parse(str, '&', '=', {
    maxKeys: 0,
    decodeURIComponent: (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        undecodable = true;
        return s;
      }
    },
  });
  if (undecodable) throw new AppError(400, 'invalid_request', MESSAGE, [{ location: 'query', path: [firstUndecodableKey(str)], code: 'invalid_value', message: MESSAGE }]);
  return parsed as Record<string, string | string[]>;
}
