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

export const FRAGMENT_CHARS = 160;
export const FRAGMENTS = 2;

interface Fragment {
  start: number;
  end: number;
  score: number;
}

/** One regular expression per stem list: each stem (and its shortened form) as a numbered group, at the start of a word. */
const patterns = new Map<string, { re: RegExp; stemOfGroup: number[] }>();

function patternOf(stems: string[]): { re: RegExp; stemOfGroup: number[] } | null {
  const key = stems.join('\u0000');
  const cached = patterns.get(key);
  if (cached) return cached;
  const alts: string[] = [];
  const stemOfGroup: number[] = [];
  stems.forEach((s, i) => {
    if (!s) return;
    const forms = [s, ...(s.length > 3 && (s.endsWith('i') || s.endsWith('e')) ? [s.slice(0, -1)] : [])];
    for (const f of forms) {
      alts.push(`(${f.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')})`);
      stemOfGroup.push(i);
    }
  });
  if (!alts.length) return null;
  const p = { re: new RegExp(`(?<![\\p{L}\\p{N}])(?:${alts.join('|')})`, 'giu'), stemOfGroup };
  if (patterns.size >= 1000) patterns.delete(patterns.keys().next().value!);
  patterns.set(key, p);
  return p;
}

/** Where query terms start in the text, and which stem each is (one scan). */
function termsIn(text: string, stems: string[]): { at: number; stem: number }[] {
  const p = patternOf(stems);
  if (!p) return [];
  const out: { at: number; stem: number }[] = [];
  p.re.lastIndex = 0;
  for (let m = p.re.exec(text); m; m = p.re.exec(text)) {
    const g = m.findIndex((x, i) => i > 0 && x !== undefined);
    out.push({ at: m.index, stem: p.stemOfGroup[g - 1] });
  }
  return out;
}

/** Sentence-bounded pieces of at most about `size` characters (a longer sentence is cut after a word). */
function fragmentsOf(text: string, size: number): { start: number; end: number }[] {
  const out: { start: number; end: number }[] = [];
  const sentence = /[^.!?\n\f]*(?:[.!?]+|[\n\f]+|$)/g;
  for (let m = sentence.exec(text); m && m[0].length; m = sentence.exec(text)) {
    let start = m.index;
    const end = m.index + m[0].length;
    while (end - start > size) {
      const cut = text.slice(start + size, end).search(/\s/);
      if (cut < 0) break;
      out.push({ start, end: start + size + cut });
      start = start + size + cut;
    }
    if (end > start) out.push({ start, end });
  }
  return out;
}

/** The passage of one page: up to FRAGMENTS best fragments in text order, joined by " … "; null when the page is empty. */
export function passageText(text: string, stems: string[]): string | null {
  const terms = termsIn(text, stems);
  const frags: Fragment[] = [];
  let t = 0;
  for (const f of fragmentsOf(text, FRAGMENT_CHARS)) {
    const seen = new Map<number, number>();
    while (t < terms.length && terms[t].at < f.start) t++;
    for (; t < terms.length && terms[t].at < f.end; t++) seen.set(terms[t].stem, (seen.get(terms[t].stem) ?? 0) + 1);
    let score = 0;
    for (const n of seen.values()) score += 1 + Math.log(n) / 4; // distinct terms first, repeats a little
    if (score > 0) frags.push({ ...f, score });
  }
  const best = frags.sort((a, b) => b.score - a.score || a.start - b.start).slice(0, FRAGMENTS).sort((a, b) => a.start - b.start);
  const tidy = (s: string) => s.replace(/\s+/g, ' ').trim();
  if (best.length) return best.map((f) => tidy(text.slice(f.start, f.end))).filter(Boolean).join(' … ') || null;
  // Nothing matched in the body (the page matched by its file name): its beginning, cut after a word.
  const head = text.slice(0, FRAGMENT_CHARS + (text.slice(FRAGMENT_CHARS).search(/\s/) + 1 || text.length));
  return tidy(head) || null;
}
