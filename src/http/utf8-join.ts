/**
 * Bytes of a response assembled from many strings (a page of stored JSON records). Concatenated as a
 * string, the page is a rope that node walks twice: once to count its UTF-8 bytes for Content-Length,
 * once to flatten and encode it on the socket write. Encoding each part straight into one scratch buffer
 * and copying the result out once was ~2.5x cheaper for a 31 KB page (26 -> 11 us per page).
 */

/** Larger responses are encoded as one joined string: the scratch buffer is kept for the process's life. */
const SCRATCH_MAX = 1024 * 1024;
/** UTF-8 needs at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units). */
const MAX_BYTES_PER_UNIT = 3;

/** Buffer's own UTF-8 writer (what `write(s, at, 'utf8')` ends in, without its argument handling per call). */
interface Utf8Writer {
  utf8Write(text: string, offset: number): number;
}

const scratchOf = (bytes: number) => Buffer.allocUnsafeSlow(bytes) as Buffer & Utf8Writer;
let scratch = scratchOf(64 * 1024);

/**
 * `parts.join('')` as UTF-8, exactly as Buffer.from (and a string write to a socket) would encode it (a
 * lone surrogate becomes U+FFFD in all three). The buffer returned is the caller's own: the scratch is
 * reused by the next call, so it never leaves this function.
 */
export function utf8Join(parts: readonly string[]): Buffer {
  let units = 0;
  let split = false;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    units += part.length;
    // A part ending in a high surrogate may pair with the next part's first unit: encoded on its own it
    // would be U+FFFD, joined it is one character. Never so for whole JSON records, but kept exact.
    const last = part.length ? part.charCodeAt(part.length - 1) : 0;
    if (last >= 0xd800 && last <= 0xdbff) split = true;
  }
  const bound = units * MAX_BYTES_PER_UNIT;
  if (split || bound > SCRATCH_MAX) return Buffer.from(parts.join(''), 'utf8');
  if (scratch.length < bound) scratch = scratchOf(Math.min(SCRATCH_MAX, Math.max(bound, scratch.length * 2)));
  let at = 0;
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i];
    // Separators are most of the parts: a byte store instead of a call into the encoder.
    if (part.length === 1 && part.charCodeAt(0) < 0x80) scratch[at++] = part.charCodeAt(0);
    else at += scratch.utf8Write(part, at);
  }
  return Buffer.from(scratch.subarray(0, at));
}
