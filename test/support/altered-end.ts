/**
 * `s` with each of its last `n` characters replaced by a different one. Writing fixed characters there
 * ('x', 'AA') left the string unchanged whenever it already ended with them: a test of a tampered token
 * then failed once in 64 (or 4,096) runs.
 */
export function alteredEnd(s: string, n = 1): string {
  const tail = [...s.slice(-n)].map((ch) => (ch === 'A' ? 'B' : 'A')).join('');
  return s.slice(0, -n) + tail;
}
