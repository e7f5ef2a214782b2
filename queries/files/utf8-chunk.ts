/** Length of the UTF-8 sequence a lead byte starts (continuation bytes, 10xxxxxx, give 0). */
function sequenceLength(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead < 0xc0) return 0;
  if (lead < 0xe0) return 2;
  if (lead < 0xf0) return 3;
  return 4;
}

/**
 * How many of `bytes` (read from a character boundary) can be returned without splitting a character:
 * all of them at the end of the text, else up to the start of a sequence the range cuts through.
 */
export function wholeCharacterLength(bytes: Buffer, atEndOfText: boolean): number {
  if (atEndOfText) return bytes.length;
  // A UTF-8 sequence is at most 4 bytes, so its lead byte is within the last 4.
  for (let i = bytes.length - 1; i >= Math.max(0, bytes.length - 4); i--) {
    const len = sequenceLength(bytes[i]);
    if (len === 0) continue;
    return i + len <= bytes.length ? bytes.length : i;
  }
  return bytes.length;
}
