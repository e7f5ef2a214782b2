/**
 * Passages built in the service from the page text instead of Elasticsearch's highlighter: for the
 * ~350 pages of a result page (50 filings, their matched files, 2 pages each) the highlighter cost
 * 3–5 times the fetch of the same pages' text on the shared 2-core machine. The passages carry no
 * markup, so all the highlighter contributed was which fragments to show; this picks them the same
 * way (sentence-bounded fragments of about FRAGMENT_CHARS, the ones holding the most query terms,
 * in text order; the beginning of the page when nothing matches).
 *
 * Terms are matched by the `english` analyzer's stems (Elasticsearch `_analyze` of the query, cached):
 * a word matches a stem when it starts with it, or with it minus a final `i` (y → i: policy → polici)
 * or a final `e` (rating → rate). That over-matches a little (rate ~ rates, rated, rater), which only
 * affects which fragment is shown.
 */

import { endsSentence } from '../sentence-ends';

export const FRAGMENT_CHARS = 160;
export const FRAGMENTS = 2;

interface Fragment {
  start: number;
  end: number;
  score: number;
}

/** Each stem's searched forms (itself, and without a final `i` or `e`), in the order a match prefers them. */
function formsOf(stems: string[]): { form: string; stem: number }[] {
  const out: { form: string; stem: number }[] = [];
  stems.forEach((s, i) => {
    if (!s) return;
    out.push({ form: s, stem: i });
    if (s.length > 3 && (s.endsWith('i') || s.endsWith('e'))) out.push({ form: s.slice(0, -1), stem: i });
  });
  return out;
}

const WORD_CHAR = /[\p{L}\p{N}]/u;
function isWordChar(c: number): boolean {
  if (c < 128) return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
  return WORD_CHAR.test(String.fromCharCode(c));
}

/** JavaScript's `\s`. */
function isSpace(c: number): boolean {
  if (c === 32 || (c >= 9 && c <= 13)) return true;
  if (c < 160) return false;
  return c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) || c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000 || c === 0xfeff;
}

/**
 * Where query terms start in the text, and which stem each is: at a word start (not after a letter or
 * digit), the first form (in stem order) the text starts with there, case-insensitively. Found with
 * `indexOf` per form over the lower-cased text: a case-insensitive Unicode regular expression over the
 * same text cost ten times as much, and a result page cuts passages from ~250 pages.
 */
function termsIn(text: string, stems: string[]): { at: number; stem: number }[] {
  const forms = formsOf(stems);
  if (!forms.length) return [];
  const lower = text.toLowerCase();
  // Lower-casing a few characters changes the length (İ): positions would not line up.
  if (lower.length !== text.length) return termsByCharacter(text, forms);
  // Each match as one number, position × forms + form, so that a plain numeric sort orders the matches by
  // position and, at one position, by the form preferred there (a map and a sort with a comparator were most
  // of the cutting's time).
  const n = forms.length;
  const found: number[] = [];
  for (let k = 0; k < n; k++) {
    const form = forms[k].form;
    for (let i = lower.indexOf(form); i >= 0; i = lower.indexOf(form, i + 1)) {
      if (i > 0 && isWordChar(lower.charCodeAt(i - 1))) continue;
      found.push(i * n + k);
    }
  }
  const sorted = Float64Array.from(found).sort();
  const out: { at: number; stem: number }[] = [];
  let end = 0;
  for (const x of sorted) {
    const i = Math.floor(x / n);
    // A match hides any other starting inside it (and the other forms at its own position), as a scanning
    // regular expression would.
    if (i < end) continue;
    const f = forms[x - i * n];
    out.push({ at: i, stem: f.stem });
    end = i + f.form.length;
  }
  return out;
}

/** The rare text whose lower-cased form has another length: a case-insensitive regular expression. */
function termsByCharacter(text: string, forms: { form: string; stem: number }[]): { at: number; stem: number }[] {
  const re = new RegExp(`(?<![\\p{L}\\p{N}])(?:${forms.map((f) => `(${f.form.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`).join('|')})`, 'giu');
  const out: { at: number; stem: number }[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    const g = m.findIndex((x, i) => i > 0 && x !== undefined);
    out.push({ at: m.index, stem: forms[g - 1].stem });
  }
  return out;
}

/** Character classes of the sentence split (all ASCII): 1 = `.`, `!`, `?`; 2 = `\n`, `\f`. A table: these loops read most of a page. */
const BREAK = new Uint8Array(128);
BREAK[46] = BREAK[33] = BREAK[63] = 1;
BREAK[10] = BREAK[12] = 2;
const breakOf = (c: number): number => (c < 128 ? BREAK[c] : 0);

/**
 * The sentence holding position `at` (a term's first character, never a sentence end or line break).
 * A page is cut into sentences, each running to a run of `.`, `!` or `?` that ends a sentence (`endsSentence`:
 * not a decimal point, an abbreviation or initials), or through a run of line breaks, or to the end. Found from
 * `at` outwards, so only the sentences holding terms are ever read, and only the stops where a cut would fall
 * are checked.
 */
function sentenceAt(text: string, at: number): { start: number; end: number } {
  const n = text.length;
  let start = at;
  for (;;) {
    while (start > 0 && breakOf(text.charCodeAt(start - 1)) === 0) start--;
    if (start === 0 || breakOf(text.charCodeAt(start - 1)) === 2) break;
    let from = start - 1;
    while (from > 0 && breakOf(text.charCodeAt(from - 1)) === 1) from--;
    if (endsSentence(text, from, start)) break;
    start = from;
  }
  let end = at;
  for (;;) {
    while (end < n && breakOf(text.charCodeAt(end)) === 0) end++;
    if (end >= n) break;
    const from = end;
    const kind = breakOf(text.charCodeAt(end));
    while (end < n && breakOf(text.charCodeAt(end)) === kind) end++;
    if (kind === 2 || endsSentence(text, from, end)) break;
  }
  return { start, end };
}

/** The fragment of a sentence holding `at`: the sentence, or when longer than `size` its piece of about `size` characters cut after a word. */
function fragmentAt(text: string, sentence: { start: number; end: number }, at: number, size: number): { start: number; end: number } {
  let { start } = sentence;
  const { end } = sentence;
  while (end - start > size) {
    let cut = start + size;
    while (cut < end && !isSpace(text.charCodeAt(cut))) cut++;
    if (cut >= end) break;
    if (at < cut) return { start, end: cut };
    start = cut;
  }
  return { start, end };
}

/** The passage of one page: up to FRAGMENTS best fragments in text order, joined by " … "; null when the page is empty. */
export function passageText(text: string, stems: string[]): string | null {
  const terms = termsIn(text, stems);
  // The FRAGMENTS best so far, best first; fragments come in text order, so a tie keeps the earlier one.
  const best: Fragment[] = [];
  const counts = new Array<number>(stems.length).fill(0);
  const order: number[] = [];
  // Terms come in text order: the sentence of the last one serves the next ones inside it (a long sentence, a rate
  // table whose decimals end none, is then scanned once, not once per fragment).
  let sentence = { start: 0, end: 0 };
  for (let t = 0; t < terms.length; ) {
    if (breakOf(text.charCodeAt(terms[t].at)) !== 0) {
      t++;
      continue;
    }
    if (terms[t].at >= sentence.end) sentence = sentenceAt(text, terms[t].at);
    const f = fragmentAt(text, sentence, terms[t].at, FRAGMENT_CHARS);
    for (; t < terms.length && terms[t].at < f.end; t++) {
      if (counts[terms[t].stem]++ === 0) order.push(terms[t].stem);
    }
    let score = 0;
    for (const k of order) score += 1 + Math.log(counts[k]) / 4; // distinct terms first, repeats a little
    for (const k of order) counts[k] = 0;
    order.length = 0;
    let at = best.length;
    while (at > 0 && best[at - 1].score < score) at--;
    if (at < FRAGMENTS) {
      best.splice(at, 0, { start: f.start, end: f.end, score });
      if (best.length > FRAGMENTS) best.pop();
    }
  }
  best.sort((a, b) => a.start - b.start);
  const tidy = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (best.length) return best.map((f) => tidy(text.slice(f.start, f.end))).filter(Boolean).join(' … ') || null;
  // Nothing matched in the body (the page matched by its file name): its beginning, cut after a word.
  const head = text.slice(0, FRAGMENT_CHARS + (text.slice(FRAGMENT_CHARS).search(/\s/) + 1 || text.length));
  return tidy(head) || null;
}
