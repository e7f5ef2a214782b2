/**
 * Where a passage may end a sentence. Passages are cut at sentence ends; a full stop alone is no evidence of one
 * ("the premium impact is -1.2%", "Rule No. 5", "J. R. Smith"), so each stop a cut would use is checked here:
 * Unicode sentence boundaries (`Intl.Segmenter` with granularity 'sentence', i.e. ICU's UAX #29 rules: no end
 * inside a number, nor before a lower-case continuation) over a short window around the stop only, never a whole
 * page; and, where those rules break but a reader does not, no end after a known abbreviation or after initials.
 * ICU can suppress such breaks itself (CLDR's `ss` lists), but V8's `Intl.Segmenter` does not expose that option.
 */

const segmenter = new Intl.Segmenter('en', { granularity: 'sentence' });

/** Characters of text around a stop that the boundary rules look at: ample for UAX #29's look-behind and look-ahead in running text. */
const CONTEXT = 48;

/** Abbreviations that end with a stop mid-sentence in filings and rate manuals (without the stop), as written. */
const ABBREVIATIONS = new Set(
  [
    'No', 'Nos', 'Sec', 'Secs', 'Sect', 'Art', 'Arts', 'Ch', 'Chap', 'Para', 'Paras', 'Par', 'Pg', 'Pp', 'pp', 'Vol', 'Vols',
    'Fig', 'Figs', 'Ref', 'Reg', 'Regs', 'Stat', 'Stats', 'Ann', 'Rev', 'Ed', 'Ex', 'Exh', 'Subd', 'Subsec', 'Sched',
    'Inc', 'Co', 'Corp', 'Ltd', 'Bros', 'Assn', 'Ins', 'Mut', 'Natl', 'Dept', 'Div', 'Gov', 'Govt', 'Admin',
    'Mr', 'Mrs', 'Ms', 'Dr', 'Prof', 'Jr', 'Sr', 'St', 'Mt', 'Ave', 'Blvd',
    'Jan', 'Feb', 'Mar', 'Apr', 'Jun', 'Jul', 'Aug', 'Sep', 'Sept', 'Oct', 'Nov', 'Dec',
    'approx', 'Approx', 'cf', 'Cf', 'vs', 'viz', 'al', 'incl', 'Incl', 'excl', 'Excl', 'est', 'Est', 'Ph.D',
  ].flatMap((a) => [a, a.toUpperCase()]),
);

/** One letter, or letters each followed by a stop ("J", "U.S", "e.g", "i.e", "P.O"): initials and dotted abbreviations. */
const INITIALS = /^(?:\p{L}\.)*\p{L}$/u;

const TOKEN_CHAR = /[\p{L}\p{N}.]/u;
const isTokenChar = (c: string) => TOKEN_CHAR.test(c);
const isSpace = (c: string) => /\s/.test(c);
/** Closing quotes and brackets, which UAX #29 keeps with the sentence they close. */
const isClose = (c: string) => `"')]}’”»`.includes(c);

/** Whether the word that a single stop at `stop` ends is an abbreviation or initials. */
function abbreviationAt(text: string, stop: number): boolean {
  let from = stop;
  while (from > 0 && isTokenChar(text[from - 1])) from--;
  const token = text.slice(from, stop);
  return token.length > 0 && (ABBREVIATIONS.has(token) || INITIALS.test(token));
}

/**
 * Whether the run of sentence punctuation `text[from, to)` (`.`, `!`, `?`) ends a sentence: true at the end of the
 * text; false after an abbreviation or initials (a single stop); otherwise whether a Unicode sentence boundary
 * follows the run, its closing quotes and brackets and its spaces.
 */
export function endsSentence(text: string, from: number, to: number): boolean {
  const n = text.length;
  let next = to;
  while (next < n && (isClose(text[next]) || isSpace(text[next]))) next++;
  if (next >= n) return true;
  if (to - from === 1 && text[from] === '.' && abbreviationAt(text, from)) return false;
  const lo = Math.max(0, from - CONTEXT);
  const segment = segmenter.segment(text.slice(lo, Math.min(n, next + CONTEXT))).containing(next - lo);
  return segment !== undefined && segment.index === next - lo;
}
