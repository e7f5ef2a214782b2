/**
 * Text Postgres can store: `text` and `jsonb` hold neither U+0000 nor a UTF-16 surrogate without its pair
 * (JSON allows both as `\u0000` and `\ud800`; Postgres answers 22P02 or 22021). Input is checked against this
 * once, where it arrives, so such a value is a coded refusal and never a database error deep in a write.
 */
export function isStorableText(s: string): boolean {
  return !s.includes('\u0000') && (s as unknown as { isWellFormed(): boolean }).isWellFormed();
}

export const UNSTORABLE_TEXT_MESSAGE = 'Text may not contain NUL (U+0000) characters or unpaired UTF-16 surrogates.';
