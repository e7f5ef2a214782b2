/**
 * Passage cutting in isolation: node time per page of `passageText` (both search adapters cut passages with it)
 * on the demo catalog's page text, for the query stems of a few typical searches, and how many fragments start or
 * end inside a number. `npx tsx bench/profile-passages.ts` (`FILINGS=n`, default 300, ~3,400 pages; `ROUNDS=n`);
 * `MODULE=path/to/passage-text.ts` measures another version of the module (an older commit's, from `git show`),
 * so two versions are compared on one machine back to back.
 */
import path from 'node:path';
import { demoIndexedFilings } from './support/search-corpus';

type Cut = (text: string, stems: string[]) => string | null;

const STEMS = [['premium'], ['rate', 'factor'], ['territori'], ['deduct', 'limit'], ['chang', 'indic'], ['wildfir', 'surcharg'], ['polici', 'form']];

async function main(): Promise<void> {
  const file = process.env.MODULE ? path.resolve(process.env.MODULE) : path.join(__dirname, '../infra/search/elasticsearch/passage-text.ts');
  const { passageText } = (await import(file)) as { passageText: Cut };
  const pages: string[] = [];
  for (const batch of demoIndexedFilings(Number(process.env.FILINGS ?? 300), 100)) {
    for (const f of batch) for (const d of f.documents) for (const p of d.pages) pages.push(p.text);
  }
  const pass = (): number => {
    let chars = 0;
    for (const text of pages) for (const s of STEMS) chars += passageText(text, s)?.length ?? 0;
    return chars;
  };
  pass(); // warm-up: JIT, and the segmenter's ICU data
  const rounds = Number(process.env.ROUNDS ?? 5);
  const times: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = process.hrtime.bigint();
    pass();
    times.push(Number(process.hrtime.bigint() - t0) / 1e3 / (pages.length * STEMS.length));
  }
  let fragments = 0;
  let insideNumbers = 0;
  for (const text of pages) {
    const flat = text.replace(/\s+/g, ' ');
    for (const s of STEMS) {
      for (const f of passageText(text, s)?.split(' … ') ?? []) {
        fragments++;
        const at = flat.indexOf(f);
        const startsInside = at > 1 && /\d/.test(f[0]) && /\d\./.test(flat.slice(at - 2, at));
        const endsInside = /\d\.$/.test(f) && /\d/.test(flat[at + f.length] ?? '');
        if (startsInside || endsInside) insideNumbers++;
      }
    }
  }
  times.sort((a, b) => a - b);
  console.log(
    JSON.stringify({
      module: path.relative(process.cwd(), file),
      pages: pages.length,
      passagesPerRound: pages.length * STEMS.length,
      usPerPassageMedian: Number(times[Math.floor(times.length / 2)].toFixed(2)),
      usPerPassageMin: Number(times[0].toFixed(2)),
      fragments,
      fragmentsCutInsideNumbers: insideNumbers,
    }),
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
