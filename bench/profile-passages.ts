/**
 * Passage cutting in isolation: node CPU time per passage of `passageText` (both search adapters cut passages with
 * it) on the demo catalog's page text, for the query stems of a few typical searches, and how many fragments start
 * or end inside a number. `npx tsx bench/profile-passages.ts` (`FILINGS=n`, default 300, ~3,400 pages; `ROUNDS=n`).
 * `BEFORE=path/to/passage-text.ts` (an older commit's module, from `git show`) measures that version too, round by
 * round in turn with this one in the same process, so both see the same machine, and prints the ratio.
 */
import path from 'node:path';
import { demoIndexedFilings } from './support/search-corpus';

type Cut = (text: string, stems: string[]) => string | null;

const STEMS = [['premium'], ['rate', 'factor'], ['territori'], ['deduct', 'limit'], ['chang', 'indic'], ['wildfir', 'surcharg'], ['polici', 'form']];

function demoPages(filings: number): string[] {
  const pages: string[] = [];
  for (const batch of demoIndexedFilings(filings, 100)) {
    for (const f of batch) for (const d of f.documents) for (const p of d.pages) pages.push(p.text);
  }
  return pages;
}

/** CPU microseconds per passage of one pass over every page and stem set (CPU, not wall time: the shared machine's other processes take the cores at random). */
function cpuPerPassage(cut: Cut, pages: string[]): number {
  const t0 = process.cpuUsage();
  for (const text of pages) for (const s of STEMS) cut(text, s);
  const used = process.cpuUsage(t0);
  return (used.user + used.system) / (pages.length * STEMS.length);
}

/** Fragments (passages split at their " … ") and those that start or end inside a number ("-1." of "-1.2%"). */
function quality(cut: Cut, pages: string[]): { fragments: number; cutInsideNumbers: number } {
  let fragments = 0;
  let cutInsideNumbers = 0;
  for (const text of pages) {
    const flat = text.replace(/\s+/g, ' ');
    for (const s of STEMS) {
      for (const f of cut(text, s)?.split(' … ') ?? []) {
        fragments++;
        const at = flat.indexOf(f);
        const startsInside = at > 1 && /\d/.test(f[0]) && /\d\./.test(flat.slice(at - 2, at));
        const endsInside = /\d\.$/.test(f) && /\d/.test(flat[at + f.length] ?? '');
        if (startsInside || endsInside) cutInsideNumbers++;
      }
    }
  }
  return { fragments, cutInsideNumbers };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main(): Promise<void> {
  const load = async (file: string) => ((await import(path.resolve(file))) as { passageText: Cut }).passageText;
  const versions: [string, Cut][] = [['current', await load(path.join(__dirname, '../infra/search/elasticsearch/passage-text.ts'))]];
  if (process.env.BEFORE) versions.push(['before', await load(process.env.BEFORE)]);
  const pages = demoPages(Number(process.env.FILINGS ?? 300));
  for (const [, cut] of versions) cpuPerPassage(cut, pages); // warm-up: JIT, and the segmenter's ICU data
  const times = new Map<string, number[]>(versions.map(([name]) => [name, []]));
  for (let r = 0; r < Number(process.env.ROUNDS ?? 7); r++) {
    for (const [name, cut] of versions) times.get(name)!.push(cpuPerPassage(cut, pages));
  }
  const out: Record<string, unknown> = { pages: pages.length, passagesPerRound: pages.length * STEMS.length };
  for (const [name, cut] of versions) {
    out[name] = { cpuUsPerPassageMedian: Number(median(times.get(name)!).toFixed(2)), ...quality(cut, pages) };
  }
  if (times.has('before')) out.ratio = Number((median(times.get('current')!) / median(times.get('before')!)).toFixed(2));
  console.log(JSON.stringify(out));
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
