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

const TOKEN_CHAR = /[\p{L}\p{N}]/u;
/** Letters, digits and stops: the characters of a word a stop may end ("e.g", "U.S", "No"). */
function isTokenChar(c: number): boolean {
  if (c < 128) return c === 46 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return TOKEN_CHAR.test(String.fromCharCode(c));
}
const SPACE = /\s/;
const isSpace = (c: number) => c === 32 || (c >= 9 && c <= 13) || (c >= 128 && SPACE.test(String.fromCharCode(c)));
/** Closing quotes and brackets, which UAX #29 keeps with the sentence they close. */
const CLOSE = new Set([...`"')]}’”»`].map((c) => c.charCodeAt(0)));

/** Whether the word that a single stop at `stop` ends is an abbreviation or initials. */
function abbreviationAt(text: string, stop: number): boolean {
  let from = stop;
  while (from > 0 && isTokenChar(text.charCodeAt(from - 1))) from--;
  const token = text.slice(from, stop);
  return token.length > 0 && (ABBREVIATIONS.has(token) || INITIALS.test(token));
}

/**
 * What the segmenter answers for the commonest stops, without asking it (a call costs microseconds, and a rate
 * filing's page has a stop every few words): a line break after the run and plain spaces ends the sentence (UAX #29
 * SB4, SB11); after a run of full stops, a digit right after the run continues a number (SB6), and after plain
 * spaces an ASCII capital starts a sentence (SB11) while a lower-case letter continues one (SB8). Undefined for
 * anything else (quotes, brackets, other scripts). A test holds these answers to the segmenter's on every stop of
 * the demo catalog.
 */
export function quickAnswer(text: string, from: number, to: number): boolean | undefined {
  let next = to;
  while (text.charCodeAt(next) === 32) next++;
  const d = text.charCodeAt(next);
  if (d === 10 || d === 13) return true;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) !== 46) return undefined;
  if (next === to) return d >= 48 && d <= 57 ? false : undefined;
  if (d >= 65 && d <= 90) return true;
  if (d >= 97 && d <= 122) return false;
  return undefined;
}

/** Whether a Unicode sentence boundary (Intl.Segmenter) falls at `next`, judged on the text around `text[from, next)`. */
export function segmenterBoundary(text: string, from: number, next: number): boolean {
  const lo = Math.max(0, from - CONTEXT);
  const segment = segmenter.segment(text.slice(lo, Math.min(text.length, next + CONTEXT))).containing(next - lo);
  return segment !== undefined && segment.index === next - lo;
}

/**
 * Whether the run of sentence punctuation `text[from, to)` (`.`, `!`, `?`) ends a sentence: true at the end of the
 * text; false after an abbreviation or initials (a single stop); otherwise whether a Unicode sentence boundary
 * follows the run, the closing quotes and brackets right after it, and its spaces.
 */
export function endsSentence(text: string, from: number, to: number): boolean {
  const n = text.length;
  let next = to;
  // UAX #29's ATerm Close* Sp*: a quote after the spaces opens the next sentence.
  while (next < n && CLOSE.has(text.charCodeAt(next))) next++;
  while (next < n && isSpace(text.charCodeAt(next))) next++;
  if (next >= n) return true;
  if (to - from === 1 && text[from] === '.' && abbreviationAt(text, from)) return false;
  return quickAnswer(text, from, to) ?? segmenterBoundary(text, from, next);
}
