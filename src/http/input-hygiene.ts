import { AppError, type DetailLocation } from '../domain/errors';
import { isStorableText, UNSTORABLE_TEXT_MESSAGE } from '../domain/storable-text';

/** Nesting deeper than this is not walked: the body limits keep real inputs far shallower. */
const MAX_DEPTH = 64;

/**
 * The path of the first string in `value` (keys included) that Postgres could not store, or null.
 * Walks only what is there: a body without such text costs one well-formedness check per string.
 */
export function findUnstorableText(value: unknown, depth = 0): string[] | null {
  if (typeof value === 'string') return isStorableText(value) ? null : [];
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object') return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorableText(value[i], depth + 1);
      if (found) return [String(i), ...found];
    }
    return null;
  }
  for (const k in value) {
    if (!isStorableText(k)) return [k];
    const found = findUnstorableText((value as Record<string, unknown>)[k], depth + 1);
    if (found) return [k, ...found];
  }
  return null;
}

export function unstorableText(location: DetailLocation, path: string[]): AppError {
  // A key holding a lone surrogate would itself be unreadable in the answer: such segments are shown escaped.
  const shown = path.map((p) => (isStorableText(p) ? p : JSON.stringify(p).slice(1, -1)));
  return new AppError(400, 'invalid_request', UNSTORABLE_TEXT_MESSAGE, [{ location, path: shown, code: 'invalid_value', message: UNSTORABLE_TEXT_MESSAGE }]);
}

/** The one input-hygiene step: every string of the path, query or body Postgres could not store is a coded 400. */
export function rejectUnstorableText(location: DetailLocation, value: unknown): void {
  const at = findUnstorableText(value);
  if (at) throw unstorableText(location, at);
}
